// scratch: []
// ---- conv2dGradInput[1x2x5x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: conv2dGradInput [1, 3, 5, 5]:f32, [3, 2, 3, 3]:f32 -> [1, 2, 5, 5]:f32
// conv2dGradInput (gather-style transposed conv): a thread per input pixel × 2 input channels
@group(0) @binding(0) var<storage, read> dy: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 25u) { return; }
  let ix = i32(o % 5u);
  let iy = i32((o / 5u) % 5u);
  let ct = (o / 25u) % 1u;
  let b = o / 25u;
  let c0 = ct * 2u;
  let g = c0 / 2u;
  let ic0 = c0 % 2u;
  var acc0 = 0.0;
  var acc1 = 0.0;
  for (var q = 0u; q < 3u; q = q + 1u) {
    let oc = g * 3u + q;
    for (var ky = 0; ky < 3; ky = ky + 1) {
      let ty = iy + 1 - ky * 1;
      if (ty < 0 || ty % 1 != 0 || ty / 1 >= 5) { continue; }
      for (var kx = 0; kx < 3; kx = kx + 1) {
        let tx = ix + 1 - kx * 1;
        if (tx < 0 || tx % 1 != 0 || tx / 1 >= 5) { continue; }
        let dv = dy[((b * 3u + oc) * 5u + u32(ty / 1)) * 5u + u32(tx / 1)];
        let wi = ((oc * 2u + ic0) * 3u + u32(ky)) * 3u + u32(kx);
        acc0 = fma(dv, w[wi], acc0);
        acc1 = fma(dv, w[wi + 9u], acc1);
      }
    }
  }
  let xo = ((b * 2u + c0) * 5u + u32(iy)) * 5u + u32(ix);
  y[xo] = acc0;
  y[xo + 25u] = acc1;
}

