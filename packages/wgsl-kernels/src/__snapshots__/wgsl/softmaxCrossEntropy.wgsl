// scratch: [16]
// ---- softmaxCrossEntropy[4x10:rows]: workgroup [16,1,1] grid [4,1,1] bindings input0:read:f32 input1:read:i32 scratch0:read_write:f32
// neura kernel: softmaxCrossEntropy [4, 10]:f32, [4]:i32 -> []:f32
// pass 1 of 2: a workgroup of 16 per row writes logsumexp - x[label] (0 for a label outside [0, C))
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> labels: array<i32>;
@group(0) @binding(2) var<storage, read_write> losses: array<f32>;

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

fn wg_max(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = 8u; s > 0u; s = s >> 1u) {
    if (lid < s) { red[lid] = max(red[lid], red[lid + s]); }
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
  var mx = x[base];
  for (var j = lid; j < C; j = j + 16u) { mx = max(mx, x[base + j]); }
  let m = wg_max(mx, lid);
  var se = 0.0;
  for (var j = lid; j < C; j = j + 16u) { se = se + exp(x[base + j] - m); }
  let lse = m + log(wg_sum(se, lid));
  let l = labels[row];
  let ok = l >= 0i && l < i32(C);
  let lc = u32(clamp(l, 0i, i32(C) - 1i));
  if (lid == 0u) { losses[row] = select(0.0, lse - x[base + lc], ok); }
}

// ---- softmaxCrossEntropy[4x10:sum]: workgroup [128,1,1] grid [1,1,1] bindings scratch0:read:f32 output:read_write:f32
// neura kernel: softmaxCrossEntropy [4, 10]:f32, [4]:i32 -> []:f32
// pass 2 of 2: one workgroup sums 4 row losses (mean)
@group(0) @binding(0) var<storage, read> losses: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const R = 4u;
var<workgroup> red: array<f32, 128>;

fn wg_sum(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = 64u; s > 0u; s = s >> 1u) {
    if (lid < s) { red[lid] = red[lid] + red[lid + s]; }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32) {
  var acc = 0.0;
  for (var row = lid; row < R; row = row + 128u) {
    acc = acc + losses[row];
  }
  let total = wg_sum(acc, lid);
  if (lid == 0u) { y[0] = total / 4.0; }
}

