// scratch: []
// ---- reduceMax[4x6->4]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: reduceMax [4, 6]:f32 -> [4]:f32
// general: a thread per output loops over 6 reduced elements by baked strides (merged axes kr)
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const R = 4u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= R) { return; }
  let k0 = o;
  let base = k0 * 6u;
  var acc = x[base];
  for (var j = 1u; j < 6u; j = j + 1u) {
    let q0 = j;
    let off = q0;
    acc = max(acc, x[base + off]);
  }
  y[o] = acc;
}

