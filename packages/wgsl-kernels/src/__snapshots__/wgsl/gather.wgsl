// scratch: []
// ---- gather[3x4]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:i32 output:read_write:f32
// neura kernel: gather [5, 4]:f32, [3]:i32 -> [3, 4]:f32
// gather along axis 0: 3 indices into 5 rows of 4 (indices clamped)
@group(0) @binding(0) var<storage, read> table: array<f32>;
@group(0) @binding(1) var<storage, read> idx: array<i32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 12u) { return; }
  let b = o % 4u;
  let t = o / 4u;
  let j = t % 3u;
  let a = t / 3u;
  let r = u32(clamp(idx[j], 0i, 4i));
  y[o] = table[(a * 5u + r) * 4u + b];
}

