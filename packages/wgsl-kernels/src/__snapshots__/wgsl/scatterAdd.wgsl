// scratch: []
// ---- scatterAdd[5x4]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:i32 input2:read:f32 output:read_write:f32
// neura kernel: scatterAdd [5, 4]:f32, [3]:i32, [3, 4]:f32 -> [5, 4]:f32
// scatterAdd (gather-style): each target element sums the updates of the 3 indices that hit its row
@group(0) @binding(0) var<storage, read> tgt: array<f32>;
@group(0) @binding(1) var<storage, read> idx: array<i32>;
@group(0) @binding(2) var<storage, read> upd: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 20u) { return; }
  let b = o % 4u;
  let t = o / 4u;
  let r = i32(t % 5u);
  let a = t / 5u;
  var acc = tgt[o];
  for (var j = 0u; j < 3u; j = j + 1u) {
    if (idx[j] == r) { acc = acc + upd[(a * 3u + j) * 4u + b]; }
  }
  y[o] = acc;
}

