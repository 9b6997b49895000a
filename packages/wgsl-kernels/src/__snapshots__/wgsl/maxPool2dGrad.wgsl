// scratch: []
// ---- maxPool2dGrad[1x2x4x4]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: maxPool2dGrad [1, 2, 4, 4]:f32, [1, 2, 2, 2]:f32 -> [1, 2, 4, 4]:f32
// maxPool2dGrad (gather-style): a thread per input element re-finds the maxima of the windows covering it
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

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
      {
  var best = 0xffffffffu;
  var bv = 0.0;
  for (var ky = 0; ky < 2; ky = ky + 1) {
    let iy = oy * 2 - 0 + ky;
    if (iy < 0 || iy >= 4) { continue; }
    for (var kx = 0; kx < 2; kx = kx + 1) {
      let ix = ox * 2 - 0 + kx;
      if (ix < 0 || ix >= 4) { continue; }
      let ti = (p * 4u + u32(iy)) * 4u + u32(ix);
      let v = x[ti]; if (best == 0xffffffffu || v > bv) { best = ti; bv = v; }
    }
  }
      if (best == o) { acc = acc + dy[(p * 2u + u32(oy)) * 2u + u32(ox)]; }
      }
    }
  }
  y[o] = acc;
}

