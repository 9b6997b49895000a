// scratch: []
// ---- nll[4x10]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:i32 output:read_write:f32
// neura kernel: nll [4, 10]:f32, [4]:i32 -> []:f32
// one workgroup of 128 sums -logp[i, label_i] over 4 rows (mean); labels outside [0, 10) add 0
@group(0) @binding(0) var<storage, read> logp: array<f32>;
@group(0) @binding(1) var<storage, read> labels: array<i32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

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
    let l = labels[row];
    let ok = l >= 0i && l < 10i;
    let lc = u32(clamp(l, 0i, 9i));
    acc = acc - select(0.0, logp[row * 10u + lc], ok);
  }
  let total = wg_sum(acc, lid);
  if (lid == 0u) { y[0] = total / 4.0; }
}

