// scratch: []
// ---- pointwise[3x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: pointwise [3, 5]:f32, [5]:f32 -> [3, 5]:f32
// fused pointwise expression (f32 arithmetic, one let per distinct subexpression)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const N = 15u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= N) { return; }
  let c1 = o % 5u;
  let cr1 = o / 5u;
  let i1 = c1;
  let v0 = x0[o];
  let v1 = x1[i1];
  let t0 = bitcast<f32>(select(bitcast<u32>(v0), 0u, bitcast<u32>(v0) - 0x80000001u < 0x7f800000u));
  let t1 = (v1 * v1 * v1);
  let t2 = (t0 + t1);
  y[o] = t2;
}

