// scratch: []
// ---- maxPool2dIndices[1x2x2x3]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:i32
// neura kernel: maxPool2dIndices [1, 2, 5, 5]:f32 -> [1, 2, 2, 3]:i32
// maxPool2dIndices 3x3: a thread per output
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<i32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 12u) { return; }
  let ox = i32(o % 3u);
  let oy = i32((o / 3u) % 2u);
  let p = o / 6u;
  var best = 0xffffffffu;
  var bv = 0.0;
  for (var ky = 0; ky < 3; ky = ky + 1) {
    let iy = oy * 2 - 1 + ky * 2;
    if (iy < 0 || iy >= 5) { continue; }
    for (var kx = 0; kx < 3; kx = kx + 1) {
      let ix = ox * 2 - 1 + kx;
      if (ix < 0 || ix >= 5) { continue; }
      let ti = (p * 5u + u32(iy)) * 5u + u32(ix);
      let v = x[ti]; if (best == 0xffffffffu || v > bv) { best = ti; bv = v; }
    }
  }
  y[o] = i32(best % 25u);
}

