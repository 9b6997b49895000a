// scratch: []
// ---- sigmoid[3x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: sigmoid [3, 5]:f32 -> [3, 5]:f32
// elementwise unary sigmoid
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const N = 15u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= N) { return; }
  let v0 = x0[o];
  y[o] = (1.0 / (1.0 + exp(-v0)));
}

