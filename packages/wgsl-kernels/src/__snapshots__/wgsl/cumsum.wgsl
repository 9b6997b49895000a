// scratch: []
// ---- cumsum[4x5x3]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: cumsum [4, 5, 3]:f32 -> [4, 5, 3]:f32
// reverse scan over 5 elements of stride 3, a thread per row
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 12u) { return; }
  let first = (o / 3u) * 15u + o % 3u;
  var acc = f32(0);
  for (var k = 0u; k < 5u; k = k + 1u) {
    let i = first + (4u - k) * 3u;
    acc = acc + x[i];
    y[i] = acc;
  }
}

