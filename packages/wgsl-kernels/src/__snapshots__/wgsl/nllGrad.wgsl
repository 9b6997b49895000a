// scratch: []
// ---- nllGrad[4x10]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:i32 input1:read:f32 output:read_write:f32
// neura kernel: nllGrad [4]:i32, []:f32 -> [4, 10]:f32
// a thread per element: -dy where the column is the row's label, else 0
@group(0) @binding(0) var<storage, read> labels: array<i32>;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const TOTAL = 40u;
const C = 10u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= TOTAL) { return; }
  let row = o / C;
  let col = o % C;
  let v = -dy[0];
  y[o] = select(0.0, v, labels[row] == i32(col));
}

