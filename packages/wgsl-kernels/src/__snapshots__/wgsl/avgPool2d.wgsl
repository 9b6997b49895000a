// scratch: []
// ---- avgPool2d[1x2x2x2]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: avgPool2d [1, 2, 4, 4]:f32 -> [1, 2, 2, 2]:f32
// avgPool2d 2x2: a thread per output
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 8u) { return; }
  let ox = i32(o % 2u);
  let oy = i32((o / 2u) % 2u);
  let p = o / 4u;
  var acc = 0.0;
  for (var ky = 0; ky < 2; ky = ky + 1) {
    let iy = oy * 2 - 0 + ky;
    if (iy < 0 || iy >= 4) { continue; }
    for (var kx = 0; kx < 2; kx = kx + 1) {
      let ix = ox * 2 - 0 + kx;
      if (ix < 0 || ix >= 4) { continue; }
      let ti = (p * 4u + u32(iy)) * 4u + u32(ix);
      acc = acc + x[ti];
    }
  }
  y[o] = acc / 4.0;
}

