// scratch: []
// ---- concat[2x4]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: concat [2, 3]:f32, [2, 1]:f32 -> [2, 4]:f32
// concat along axis 1: inputs 0, 1 into [0, 4)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 8u) { return; }
  let iv = o % 1u;
  let t = o / 1u;
  let ap = t % 4u;
  let ou = t / 4u;
  var v: f32;
  if (ap < 3u) { v = x0[(ou * 3u + ap - 0u) * 1u + iv]; } else { v = x1[(ou * 1u + ap - 3u) * 1u + iv]; }
  y[(ou * 4u + 0u + ap) * 1u + iv] = v;
}

