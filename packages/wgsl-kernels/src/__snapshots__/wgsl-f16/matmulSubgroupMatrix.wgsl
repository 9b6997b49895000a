// scratch: []
// ---- matmul[256x128x256]: workgroup [128,1,1] grid [4,4,1] bindings input0:read:f16 input1:read:f16 output:read_write:f16
// neura kernel: matmul [256, 128]:f16, [128, 256]:f16 -> [256, 256]:f16
// subgroup-matrix matmul A·B (f16 operands, f32 accumulation): M=256 N=256 K=128, tile 64x64x32, 2x2 subgroups of 2x2 16x16x16 matrices, rows padded by 8, vec4 A loads, vec4 B loads, results staged per row of matrices
enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium.subgroup_matrix_uniformity);
@group(0) @binding(0) var<storage, read> a: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> y: array<vec4<f16>>;

const M = 256u;
const N = 256u;
const K = 128u;
var<workgroup> As: array<f16, 2560>;
var<workgroup> Bs: array<f16, 2304>;
var<workgroup> Cs: array<f32, 1024>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row0 = wid.y * 64u;
  let col0 = wid.x * 64u;
  let sg = lid / 32u;
  let sl = lid % 32u;
  let sm = sg / 2u;
  let sn = sg % 2u;
  let aoff = 0u; let boff = 0u; let yoff = 0u; let zbias = 0u;
  var c0_0: subgroup_matrix_result<f32, 16, 16>;
  var c0_1: subgroup_matrix_result<f32, 16, 16>;
  var c1_0: subgroup_matrix_result<f32, 16, 16>;
  var c1_1: subgroup_matrix_result<f32, 16, 16>;
  var ar0: vec4<f16>; var ar1: vec4<f16>; var ar2: vec4<f16>; var ar3: vec4<f16>; var br0: vec4<f16>; var br1: vec4<f16>; var br2: vec4<f16>; var br3: vec4<f16>;
  let kbeg = 0u; let kend = K;
  { let kt = kbeg;
    { let i0 = ((lid + 0u) % 8u) * 4u; let o = (lid + 0u) / 8u; ar0 = vec4<f16>(); if (row0 + o < M && kt + i0 < kend) { ar0 = vec4<f16>(a[(aoff + (row0 + o) * K + kt + i0) / 4u]); } }
    { let i0 = ((lid + 128u) % 8u) * 4u; let o = (lid + 128u) / 8u; ar1 = vec4<f16>(); if (row0 + o < M && kt + i0 < kend) { ar1 = vec4<f16>(a[(aoff + (row0 + o) * K + kt + i0) / 4u]); } }
    { let i0 = ((lid + 256u) % 8u) * 4u; let o = (lid + 256u) / 8u; ar2 = vec4<f16>(); if (row0 + o < M && kt + i0 < kend) { ar2 = vec4<f16>(a[(aoff + (row0 + o) * K + kt + i0) / 4u]); } }
    { let i0 = ((lid + 384u) % 8u) * 4u; let o = (lid + 384u) / 8u; ar3 = vec4<f16>(); if (row0 + o < M && kt + i0 < kend) { ar3 = vec4<f16>(a[(aoff + (row0 + o) * K + kt + i0) / 4u]); } }
    { let i0 = ((lid + 0u) % 16u) * 4u; let o = (lid + 0u) / 16u; br0 = vec4<f16>(); if (col0 + i0 < N && kt + o < kend) { br0 = vec4<f16>(b[(boff + (kt + o) * N + col0 + i0) / 4u]); } }
    { let i0 = ((lid + 128u) % 16u) * 4u; let o = (lid + 128u) / 16u; br1 = vec4<f16>(); if (col0 + i0 < N && kt + o < kend) { br1 = vec4<f16>(b[(boff + (kt + o) * N + col0 + i0) / 4u]); } }
    { let i0 = ((lid + 256u) % 16u) * 4u; let o = (lid + 256u) / 16u; br2 = vec4<f16>(); if (col0 + i0 < N && kt + o < kend) { br2 = vec4<f16>(b[(boff + (kt + o) * N + col0 + i0) / 4u]); } }
    { let i0 = ((lid + 384u) % 16u) * 4u; let o = (lid + 384u) / 16u; br3 = vec4<f16>(); if (col0 + i0 < N && kt + o < kend) { br3 = vec4<f16>(b[(boff + (kt + o) * N + col0 + i0) / 4u]); } }
  }
  for (var k0 = kbeg; k0 < kend; k0 = k0 + 32u) {
    { let i0 = ((lid + 0u) % 8u) * 4u; let o = (lid + 0u) / 8u; let s = o * 40u + i0; As[s + 0u] = ar0.x; As[s + 1u] = ar0.y; As[s + 2u] = ar0.z; As[s + 3u] = ar0.w; }
    { let i0 = ((lid + 128u) % 8u) * 4u; let o = (lid + 128u) / 8u; let s = o * 40u + i0; As[s + 0u] = ar1.x; As[s + 1u] = ar1.y; As[s + 2u] = ar1.z; As[s + 3u] = ar1.w; }
    { let i0 = ((lid + 256u) % 8u) * 4u; let o = (lid + 256u) / 8u; let s = o * 40u + i0; As[s + 0u] = ar2.x; As[s + 1u] = ar2.y; As[s + 2u] = ar2.z; As[s + 3u] = ar2.w; }
    { let i0 = ((lid + 384u) % 8u) * 4u; let o = (lid + 384u) / 8u; let s = o * 40u + i0; As[s + 0u] = ar3.x; As[s + 1u] = ar3.y; As[s + 2u] = ar3.z; As[s + 3u] = ar3.w; }
    { let i0 = ((lid + 0u) % 16u) * 4u; let o = (lid + 0u) / 16u; let s = o * 72u + i0; Bs[s + 0u] = br0.x; Bs[s + 1u] = br0.y; Bs[s + 2u] = br0.z; Bs[s + 3u] = br0.w; }
    { let i0 = ((lid + 128u) % 16u) * 4u; let o = (lid + 128u) / 16u; let s = o * 72u + i0; Bs[s + 0u] = br1.x; Bs[s + 1u] = br1.y; Bs[s + 2u] = br1.z; Bs[s + 3u] = br1.w; }
    { let i0 = ((lid + 256u) % 16u) * 4u; let o = (lid + 256u) / 16u; let s = o * 72u + i0; Bs[s + 0u] = br2.x; Bs[s + 1u] = br2.y; Bs[s + 2u] = br2.z; Bs[s + 3u] = br2.w; }
    { let i0 = ((lid + 384u) % 16u) * 4u; let o = (lid + 384u) / 16u; let s = o * 72u + i0; Bs[s + 0u] = br3.x; Bs[s + 1u] = br3.y; Bs[s + 2u] = br3.z; Bs[s + 3u] = br3.w; }
    workgroupBarrier();
    if (k0 + 32u < kend) { let kt = k0 + 32u;
      { let i0 = ((lid + 0u) % 8u) * 4u; let o = (lid + 0u) / 8u; ar0 = vec4<f16>(); if (row0 + o < M && kt + i0 < kend) { ar0 = vec4<f16>(a[(aoff + (row0 + o) * K + kt + i0) / 4u]); } }
      { let i0 = ((lid + 128u) % 8u) * 4u; let o = (lid + 128u) / 8u; ar1 = vec4<f16>(); if (row0 + o < M && kt + i0 < kend) { ar1 = vec4<f16>(a[(aoff + (row0 + o) * K + kt + i0) / 4u]); } }
      { let i0 = ((lid + 256u) % 8u) * 4u; let o = (lid + 256u) / 8u; ar2 = vec4<f16>(); if (row0 + o < M && kt + i0 < kend) { ar2 = vec4<f16>(a[(aoff + (row0 + o) * K + kt + i0) / 4u]); } }
      { let i0 = ((lid + 384u) % 8u) * 4u; let o = (lid + 384u) / 8u; ar3 = vec4<f16>(); if (row0 + o < M && kt + i0 < kend) { ar3 = vec4<f16>(a[(aoff + (row0 + o) * K + kt + i0) / 4u]); } }
      { let i0 = ((lid + 0u) % 16u) * 4u; let o = (lid + 0u) / 16u; br0 = vec4<f16>(); if (col0 + i0 < N && kt + o < kend) { br0 = vec4<f16>(b[(boff + (kt + o) * N + col0 + i0) / 4u]); } }
      { let i0 = ((lid + 128u) % 16u) * 4u; let o = (lid + 128u) / 16u; br1 = vec4<f16>(); if (col0 + i0 < N && kt + o < kend) { br1 = vec4<f16>(b[(boff + (kt + o) * N + col0 + i0) / 4u]); } }
      { let i0 = ((lid + 256u) % 16u) * 4u; let o = (lid + 256u) / 16u; br2 = vec4<f16>(); if (col0 + i0 < N && kt + o < kend) { br2 = vec4<f16>(b[(boff + (kt + o) * N + col0 + i0) / 4u]); } }
      { let i0 = ((lid + 384u) % 16u) * 4u; let o = (lid + 384u) / 16u; br3 = vec4<f16>(); if (col0 + i0 < N && kt + o < kend) { br3 = vec4<f16>(b[(boff + (kt + o) * N + col0 + i0) / 4u]); } }
    }
    {
      let l0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&As, (sm * 32u + 0u) * 40u + 0u, 40u);
      let l1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&As, (sm * 32u + 16u) * 40u + 0u, 40u);
      let r0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&Bs, 0u + sn * 32u + 0u, 72u);
      let r1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&Bs, 0u + sn * 32u + 16u, 72u);
      c0_0 = subgroupMatrixMultiplyAccumulate(l0, r0, c0_0);
      c0_1 = subgroupMatrixMultiplyAccumulate(l0, r1, c0_1);
      c1_0 = subgroupMatrixMultiplyAccumulate(l1, r0, c1_0);
      c1_1 = subgroupMatrixMultiplyAccumulate(l1, r1, c1_1);
    }
    {
      let l0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&As, (sm * 32u + 0u) * 40u + 16u, 40u);
      let l1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&As, (sm * 32u + 16u) * 40u + 16u, 40u);
      let r0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&Bs, 1152u + sn * 32u + 0u, 72u);
      let r1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&Bs, 1152u + sn * 32u + 16u, 72u);
      c0_0 = subgroupMatrixMultiplyAccumulate(l0, r0, c0_0);
      c0_1 = subgroupMatrixMultiplyAccumulate(l0, r1, c0_1);
      c1_0 = subgroupMatrixMultiplyAccumulate(l1, r0, c1_0);
      c1_1 = subgroupMatrixMultiplyAccumulate(l1, r1, c1_1);
    }
    workgroupBarrier();
  }
  subgroupMatrixStore<row_major>(&Cs, sg * 256u, c0_0, 16u);
  workgroupBarrier();
  for (var e = sl; e < 64u; e = e + 32u) {
    let r = row0 + sm * 32u + 0u + e / 4u; let c = col0 + sn * 32u + 0u + (e % 4u) * 4u; let q = sg * 256u + e * 4u;
    if (r < M) { var v = vec4<f32>(Cs[q], Cs[q + 1u], Cs[q + 2u], Cs[q + 3u]); if (c < N) { y[(yoff + r * N + c) / 4u] = vec4<f16>(v); } }
  }
  workgroupBarrier();
  subgroupMatrixStore<row_major>(&Cs, sg * 256u, c0_1, 16u);
  workgroupBarrier();
  for (var e = sl; e < 64u; e = e + 32u) {
    let r = row0 + sm * 32u + 0u + e / 4u; let c = col0 + sn * 32u + 16u + (e % 4u) * 4u; let q = sg * 256u + e * 4u;
    if (r < M) { var v = vec4<f32>(Cs[q], Cs[q + 1u], Cs[q + 2u], Cs[q + 3u]); if (c < N) { y[(yoff + r * N + c) / 4u] = vec4<f16>(v); } }
  }
  workgroupBarrier();
  subgroupMatrixStore<row_major>(&Cs, sg * 256u, c1_0, 16u);
  workgroupBarrier();
  for (var e = sl; e < 64u; e = e + 32u) {
    let r = row0 + sm * 32u + 16u + e / 4u; let c = col0 + sn * 32u + 0u + (e % 4u) * 4u; let q = sg * 256u + e * 4u;
    if (r < M) { var v = vec4<f32>(Cs[q], Cs[q + 1u], Cs[q + 2u], Cs[q + 3u]); if (c < N) { y[(yoff + r * N + c) / 4u] = vec4<f16>(v); } }
  }
  workgroupBarrier();
  subgroupMatrixStore<row_major>(&Cs, sg * 256u, c1_1, 16u);
  workgroupBarrier();
  for (var e = sl; e < 64u; e = e + 32u) {
    let r = row0 + sm * 32u + 16u + e / 4u; let c = col0 + sn * 32u + 16u + (e % 4u) * 4u; let q = sg * 256u + e * 4u;
    if (r < M) { var v = vec4<f32>(Cs[q], Cs[q + 1u], Cs[q + 2u], Cs[q + 3u]); if (c < N) { y[(yoff + r * N + c) / 4u] = vec4<f16>(v); } }
  }
  workgroupBarrier();
}

