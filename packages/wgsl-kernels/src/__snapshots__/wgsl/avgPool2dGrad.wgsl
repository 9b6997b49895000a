// scratch: []
// ---- avgPool2dGrad[1x2x4x4]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: avgPool2dGrad [1, 2, 2, 2]:f32 -> [1, 2, 4, 4]:f32
// avgPool2dGrad (gather-style): a thread per input element
@group(0) @binding(0) var<storage, read> dy: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 32u) { return; }
  let ix = i32(o % 4u);
  let iy = i32((o / 4u) % 4u);
  let p = o / 16u;
  var acc = 0.0;
  for (var ky = 0; ky < 2; ky = ky + 1) {
    let ty = iy + 0 - ky;
    if (ty < 0 || ty % 2 != 0 || ty / 2 >= 2) { continue; }
    let oy = ty / 2;
    for (var kx = 0; kx < 2; kx = kx + 1) {
      let tx = ix + 0 - kx;
      if (tx < 0 || tx % 2 != 0 || tx / 2 >= 2) { continue; }
      let ox = tx / 2;
      acc = acc + dy[(p * 2u + u32(oy)) * 2u + u32(ox)];
    }
  }
  y[o] = acc / 4.0;
}

