// scratch: []
// ---- reduceMin[4x6->scalar]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: reduceMin [4, 6]:f32 -> []:f32
// general: a thread per output loops over 24 reduced elements by baked strides (merged axes r)
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const R = 1u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= R) { return; }
  let base = 0u;
  var acc = x[base];
  for (var j = 1u; j < 24u; j = j + 1u) {
    let q0 = j;
    let off = q0;
    acc = min(acc, x[base + off]);
  }
  y[o] = acc;
}

