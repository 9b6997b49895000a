// scratch: []
// ---- logSoftmaxGrad[4x10]: workgroup [16,1,1] grid [4,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: logSoftmaxGrad [4, 10]:f32, [4, 10]:f32 -> [4, 10]:f32
// a workgroup of 16 per row: s = sum(g), then g - exp(y) * s
@group(0) @binding(0) var<storage, read> ls: array<f32>;
@group(0) @binding(1) var<storage, read> gr: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const R = 4u;
const C = 10u;
var<workgroup> red: array<f32, 16>;

fn wg_sum(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = 8u; s > 0u; s = s >> 1u) {
    if (lid < s) { red[lid] = red[lid] + red[lid + s]; }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}

@compute @workgroup_size(16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = wid.x;
  if (row >= R) { return; }
  let base = row * C;
  var acc = 0.0;
  for (var j = lid; j < C; j = j + 16u) { acc = acc + gr[base + j]; }
  let s = wg_sum(acc, lid);
  for (var j = lid; j < C; j = j + 16u) { y[base + j] = gr[base + j] - exp(ls[base + j]) * s; }
}

