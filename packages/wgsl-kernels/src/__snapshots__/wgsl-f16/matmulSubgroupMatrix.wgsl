// scratch: []
// ---- matmul[256x128x256]: workgroup [128,1,1] grid [4,4,1] bindings input0:read:f16 input1:read:f16 output:read_write:f16
// neura kernel: matmul [256, 128]:f16, [128, 256]:f16 -> [256, 256]:f16
// subgroup-matrix matmul A·B (f16 operands, f32 accumulation): M=256 N=256 K=128, tile 64x64x32, 2x2 subgroups of 2x2 16x16x16 matrices, f16 operands loaded straight from memory, results staged per row of matrices
enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium.subgroup_matrix_uniformity);
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> y: array<vec4<f16>>;

const M = 256u;
const N = 256u;
const K = 128u;
var<workgroup> Cs: array<f32, 2048>;

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
  let kbeg = 0u; let kend = K;
  for (var k0 = kbeg; k0 < kend; k0 = k0 + 16u) {
    var l0: subgroup_matrix_left<f16, 16, 16>; if (row0 + sm * 32u + 0u < M) { l0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a, aoff + (row0 + sm * 32u + 0u) * K + k0, K); }
    var l1: subgroup_matrix_left<f16, 16, 16>; if (row0 + sm * 32u + 16u < M) { l1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a, aoff + (row0 + sm * 32u + 16u) * K + k0, K); }
    var r0: subgroup_matrix_right<f16, 16, 16>; if (col0 + sn * 32u + 0u < N) { r0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b, boff + k0 * N + col0 + sn * 32u + 0u, N); }
    var r1: subgroup_matrix_right<f16, 16, 16>; if (col0 + sn * 32u + 16u < N) { r1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b, boff + k0 * N + col0 + sn * 32u + 16u, N); }
    c0_0 = subgroupMatrixMultiplyAccumulate(l0, r0, c0_0);
    c0_1 = subgroupMatrixMultiplyAccumulate(l0, r1, c0_1);
    c1_0 = subgroupMatrixMultiplyAccumulate(l1, r0, c1_0);
    c1_1 = subgroupMatrixMultiplyAccumulate(l1, r1, c1_1);
  }
  subgroupMatrixStore<row_major>(&Cs, sg * 512u, c0_0, 16u);
  subgroupMatrixStore<row_major>(&Cs, sg * 512u + 256u, c0_1, 16u);
  workgroupBarrier();
  for (var e = sl; e < 128u; e = e + 32u) {
    let jj = e / 64u; let ee = e % 64u; let r = row0 + sm * 32u + 0u + ee / 4u; let c = col0 + sn * 32u + 0u + jj * 16u + (ee % 4u) * 4u; let q = sg * 512u + e * 4u;
    if (r < M) { var v = vec4<f32>(Cs[q], Cs[q + 1u], Cs[q + 2u], Cs[q + 3u]); if (c < N) { y[(yoff + r * N + c) / 4u] = vec4<f16>(v); } }
  }
  workgroupBarrier();
  subgroupMatrixStore<row_major>(&Cs, sg * 512u, c1_0, 16u);
  subgroupMatrixStore<row_major>(&Cs, sg * 512u + 256u, c1_1, 16u);
  workgroupBarrier();
  for (var e = sl; e < 128u; e = e + 32u) {
    let jj = e / 64u; let ee = e % 64u; let r = row0 + sm * 32u + 16u + ee / 4u; let c = col0 + sn * 32u + 0u + jj * 16u + (ee % 4u) * 4u; let q = sg * 512u + e * 4u;
    if (r < M) { var v = vec4<f32>(Cs[q], Cs[q + 1u], Cs[q + 2u], Cs[q + 3u]); if (c < N) { y[(yoff + r * N + c) / 4u] = vec4<f16>(v); } }
  }
  workgroupBarrier();
}

