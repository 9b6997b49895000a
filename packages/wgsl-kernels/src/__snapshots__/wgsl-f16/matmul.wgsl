// scratch: []
// ---- matmul[64x32x48]: workgroup [256,1,1] grid [6,8,1] bindings input0:read:f16 input1:read:f16 output:read_write:f16
// neura kernel: matmul [64, 32]:f16, [32, 48]:f16 -> [64, 48]:f16
// skinny matmul A·B: M=64 N=48 K=32, 8 rows x 8 columns per workgroup, K split 32 ways (column lanes fastest), partials summed in workgroup memory
enable f16;
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> y: array<f16>;

const M = 64u;
const N = 48u;
const K = 32u;
const S = 32u;
var<workgroup> part: array<f32, 2048>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.y * 8u;
  let aoff = 0u; let boff = 0u; let yoff = 0u; let zbias = 0u;
  let nl = lid % 8u; let ks = lid / 8u;
  let n = wid.x * 8u + nl;
  var acc0 = 0.0; var acc1 = 0.0; var acc2 = 0.0; var acc3 = 0.0; var acc4 = 0.0; var acc5 = 0.0; var acc6 = 0.0; var acc7 = 0.0;
  if (n < N) {
    for (var k = ks; k < K; k = k + S) {
      let bv = f32(b[boff + k * N + n]);
      acc0 = fma(f32(a[aoff + (m0 + 0u) * K + k]), bv, acc0);
      acc1 = fma(f32(a[aoff + (m0 + 1u) * K + k]), bv, acc1);
      acc2 = fma(f32(a[aoff + (m0 + 2u) * K + k]), bv, acc2);
      acc3 = fma(f32(a[aoff + (m0 + 3u) * K + k]), bv, acc3);
      acc4 = fma(f32(a[aoff + (m0 + 4u) * K + k]), bv, acc4);
      acc5 = fma(f32(a[aoff + (m0 + 5u) * K + k]), bv, acc5);
      acc6 = fma(f32(a[aoff + (m0 + 6u) * K + k]), bv, acc6);
      acc7 = fma(f32(a[aoff + (m0 + 7u) * K + k]), bv, acc7);
    }
  }
  part[0u + lid] = acc0; part[256u + lid] = acc1; part[512u + lid] = acc2; part[768u + lid] = acc3; part[1024u + lid] = acc4; part[1280u + lid] = acc5; part[1536u + lid] = acc6; part[1792u + lid] = acc7;
  workgroupBarrier();
  for (var o = lid; o < 64u; o = o + 256u) {
    let r = o / 8u;
    let c = o % 8u;
    let m = m0 + r;
    let n = wid.x * 8u + c;
    if (m < M && n < N) {
      var v = 0.0;
      for (var q = 0u; q < S; q = q + 1u) { v = v + part[r * 256u + q * 8u + c]; }
      y[yoff + m * N + n] = f16(v);
    }
  }
}

