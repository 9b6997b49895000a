// scratch: []
// ---- conv2dGradWeight[3x2x3x3]: workgroup [32,1,1] grid [54,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: conv2dGradWeight [1, 2, 5, 5]:f32, [1, 3, 5, 5]:f32 -> [3, 2, 3, 3]:f32
// conv2dGradWeight: a workgroup of 32 per weight element sums 25 products (tree in shared memory)
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

var<workgroup> red: array<f32, 32>;

fn wg_sum(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = 16u; s > 0u; s = s >> 1u) {
    if (lid < s) { red[lid] = red[lid] + red[lid + s]; }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x;
  if (o >= 54u) { return; }
  let kx = i32(o % 3u);
  let ky = i32((o / 3u) % 3u);
  let ic = (o / 9u) % 2u;
  let oc = o / 18u;
  let c = (oc / 3u) * 2u + ic;
  var acc = 0.0;
  for (var t = lid; t < 25u; t = t + 32u) {
    let ox = i32(t % 5u);
    let oy = i32((t / 5u) % 5u);
    let b = t / 25u;
    let iy = oy * 1 - 1 + ky * 1;
    let ix = ox * 1 - 1 + kx * 1;
    if (iy >= 0 && iy < 5 && ix >= 0 && ix < 5) {
      acc = fma(x[((b * 2u + c) * 5u + u32(iy)) * 5u + u32(ix)], dy[((b * 3u + oc) * 5u + u32(oy)) * 5u + u32(ox)], acc);
    }
  }
  let s = wg_sum(acc, lid);
  if (lid == 0u) { y[o] = s; }
}

