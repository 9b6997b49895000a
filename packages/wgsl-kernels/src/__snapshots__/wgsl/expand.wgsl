// scratch: []
// ---- expand[3x4]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: expand [3, 1]:f32 -> [3, 4]:f32
// broadcast copy (expand)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const N = 12u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= N) { return; }
  let cr1 = o / 4u;
  let c0 = cr1;
  let i0 = c0;
  let v0 = x0[i0];
  y[o] = v0;
}

