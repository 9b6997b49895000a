// scratch: []
// ---- conv2d[1x3x5x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: conv2d [1, 2, 5, 5]:f32, [3, 2, 3, 3]:f32 -> [1, 3, 5, 5]:f32
// direct conv2d: a thread per output pixel × 1 output channels, 2x3x3 taps
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 75u) { return; }
  let ox = i32(o % 5u);
  let oy = i32((o / 5u) % 5u);
  let ot = (o / 25u) % 3u;
  let b = o / 75u;
  let oc0 = ot * 1u;
  let g = oc0 / 3u;
  var acc0 = 0.0;
  for (var ic = 0u; ic < 2u; ic = ic + 1u) {
    for (var ky = 0; ky < 3; ky = ky + 1) {
      let iy = oy * 1 - 1 + ky * 1;
      if (iy < 0 || iy >= 5) { continue; }
      for (var kx = 0; kx < 3; kx = kx + 1) {
        let ix = ox * 1 - 1 + kx * 1;
        if (ix < 0 || ix >= 5) { continue; }
        let xv = x[((b * 2u + g * 2u + ic) * 5u + u32(iy)) * 5u + u32(ix)];
        let wi = ((oc0 * 2u + ic) * 3u + u32(ky)) * 3u + u32(kx);
        acc0 = fma(xv, w[wi], acc0);
      }
    }
  }
  let yo = ((b * 3u + oc0) * 5u + u32(oy)) * 5u + u32(ox);
  y[yo] = acc0;
}

