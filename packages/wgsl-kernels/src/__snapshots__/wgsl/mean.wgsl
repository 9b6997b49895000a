// scratch: []
// ---- mean[4x6->1x6]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: mean [4, 6]:f32 -> [1, 6]:f32
// columns: a thread per output walks 4 rows of stride 6 (coalesced)
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const R = 6u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= R) { return; }
  var acc = x[o];
  for (var i = 1u; i < 4u; i = i + 1u) { acc = acc + x[i * 6u + o]; }
  y[o] = acc / 4.0;
}

