// scratch: []
// ---- argmax[4]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:i32
// neura kernel: argmax [4, 6]:f32 -> [4]:i32
// argmax over 6 elements of stride 1, a thread per output
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<i32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 4u) { return; }
  let b = o % 1u;
  let base = (o / 1u) * 6u + b;
  var best = 0i;
  var bv = x[base];
  for (var j = 1u; j < 6u && bv == bv; j = j + 1u) {
    let v = x[base + j * 1u];
    if (v > bv || v != v) { best = i32(j); bv = v; }
  }
  y[o] = best;
}

