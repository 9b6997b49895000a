// scratch: []
// ---- oneHot[4x6]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:i32 output:read_write:f32
// neura kernel: oneHot [4]:i32 -> [4, 6]:f32
// oneHot over 6 classes
@group(0) @binding(0) var<storage, read> labels: array<i32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 24u) { return; }
  y[o] = select(0.0, 1.0, labels[o / 6u] == i32(o % 6u));
}

