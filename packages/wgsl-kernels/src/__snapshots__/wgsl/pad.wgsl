// scratch: []
// ---- pad[4x9]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: pad [3, 4]:f32 -> [4, 9]:f32
// pad: before [1,0], interior [0,1], value 0.5
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 36u) { return; }
  var inside = true;
  var i = 0u;
  var r = o;
  { let c = i32(r % 9u) - 0i; r = r / 9u;
    if (c >= 0i && c % 2i == 0i && c / 2i < 4i) { i = i + u32(c / 2i) * 1u; } else { inside = false; } }
  { let c = i32(r % 4u) - 1i; r = r / 4u;
    if (c >= 0i && c < 3i) { i = i + u32(c) * 4u; } else { inside = false; } }
  var v = 0.5;
  if (inside) { v = x[i]; }
  y[o] = v;
}

