// scratch: [4608]
// ---- conv2dGradWeight[8x8x3x3]:gemm[8x640x72]:split2: workgroup [8,4,1] grid [3,1,2] bindings input0:read:f32 input1:read:f32 scratch0:read_write:f32
// neura kernel: conv2dGradWeight [2, 8, 20, 16]:f32, [2, 8, 20, 16]:f32 -> [8, 8, 3, 3]:f32
// implicit GEMM conv2dGradWeight: dw = dy · im2col(x)ᵀ: M=8 N=72 K=640, tile 16x32x16/4x4, 8x4 threads, operands gathered on the fly, K split 2 ways (chunks of 320) into partial sums
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const M = 8u;
const N = 72u;
const K = 640u;
const BK = 16u;
var<workgroup> As: array<vec4<f32>, 80>;
var<workgroup> Bs: array<vec4<f32>, 144>;

@compute @workgroup_size(8, 4)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row0 = wid.y * 16u;
  let col0 = wid.x * 32u;
  let tx = lid3.x;
  let ty = lid3.y;
  let g = 0u;
  let kbeg = (wid.z % 2u) * 320u; let kend = min(K, kbeg + 320u);
  var acc0_0 = vec4<f32>();
  var acc1_0 = vec4<f32>();
  var acc2_0 = vec4<f32>();
  var acc3_0 = vec4<f32>();
  var ra0 = 0.0;
  var ra1 = 0.0;
  var ra2 = 0.0;
  var ra3 = 0.0;
  var ra4 = 0.0;
  var ra5 = 0.0;
  var ra6 = 0.0;
  var ra7 = 0.0;
  var rb0 = 0.0;
  var rb1 = 0.0;
  var rb2 = 0.0;
  var rb3 = 0.0;
  var rb4 = 0.0;
  var rb5 = 0.0;
  var rb6 = 0.0;
  var rb7 = 0.0;
  var rb8 = 0.0;
  var rb9 = 0.0;
  var rb10 = 0.0;
  var rb11 = 0.0;
  var rb12 = 0.0;
  var rb13 = 0.0;
  var rb14 = 0.0;
  var rb15 = 0.0;
  let xa0 = lid / 16u + 0u; let oka0 = row0 + xa0 < M;
  let ara0 = (g * 8u + (row0 + xa0)) * 320u;
  let kla0 = lid % 16u;
  let xa1 = lid / 16u + 2u; let oka1 = row0 + xa1 < M;
  let ara1 = (g * 8u + (row0 + xa1)) * 320u;
  let xa2 = lid / 16u + 4u; let oka2 = row0 + xa2 < M;
  let ara2 = (g * 8u + (row0 + xa2)) * 320u;
  let xa3 = lid / 16u + 6u; let oka3 = row0 + xa3 < M;
  let ara3 = (g * 8u + (row0 + xa3)) * 320u;
  let xa4 = lid / 16u + 8u; let oka4 = row0 + xa4 < M;
  let ara4 = (g * 8u + (row0 + xa4)) * 320u;
  let xa5 = lid / 16u + 10u; let oka5 = row0 + xa5 < M;
  let ara5 = (g * 8u + (row0 + xa5)) * 320u;
  let xa6 = lid / 16u + 12u; let oka6 = row0 + xa6 < M;
  let ara6 = (g * 8u + (row0 + xa6)) * 320u;
  let xa7 = lid / 16u + 14u; let oka7 = row0 + xa7 < M;
  let ara7 = (g * 8u + (row0 + xa7)) * 320u;
  let xb0 = lid / 16u + 0u; let okb0 = col0 + xb0 < N;
  let tb0 = (col0 + xb0) % 9u; let oyb0 = i32(tb0 / 3u) - 1; let oxb0 = i32(tb0 % 3u) - 1; let xob0 = (g * 8u + (col0 + xb0) / 9u) * 320u;
  let klb0 = lid % 16u;
  let xb1 = lid / 16u + 2u; let okb1 = col0 + xb1 < N;
  let tb1 = (col0 + xb1) % 9u; let oyb1 = i32(tb1 / 3u) - 1; let oxb1 = i32(tb1 % 3u) - 1; let xob1 = (g * 8u + (col0 + xb1) / 9u) * 320u;
  let xb2 = lid / 16u + 4u; let okb2 = col0 + xb2 < N;
  let tb2 = (col0 + xb2) % 9u; let oyb2 = i32(tb2 / 3u) - 1; let oxb2 = i32(tb2 % 3u) - 1; let xob2 = (g * 8u + (col0 + xb2) / 9u) * 320u;
  let xb3 = lid / 16u + 6u; let okb3 = col0 + xb3 < N;
  let tb3 = (col0 + xb3) % 9u; let oyb3 = i32(tb3 / 3u) - 1; let oxb3 = i32(tb3 % 3u) - 1; let xob3 = (g * 8u + (col0 + xb3) / 9u) * 320u;
  let xb4 = lid / 16u + 8u; let okb4 = col0 + xb4 < N;
  let tb4 = (col0 + xb4) % 9u; let oyb4 = i32(tb4 / 3u) - 1; let oxb4 = i32(tb4 % 3u) - 1; let xob4 = (g * 8u + (col0 + xb4) / 9u) * 320u;
  let xb5 = lid / 16u + 10u; let okb5 = col0 + xb5 < N;
  let tb5 = (col0 + xb5) % 9u; let oyb5 = i32(tb5 / 3u) - 1; let oxb5 = i32(tb5 % 3u) - 1; let xob5 = (g * 8u + (col0 + xb5) / 9u) * 320u;
  let xb6 = lid / 16u + 12u; let okb6 = col0 + xb6 < N;
  let tb6 = (col0 + xb6) % 9u; let oyb6 = i32(tb6 / 3u) - 1; let oxb6 = i32(tb6 % 3u) - 1; let xob6 = (g * 8u + (col0 + xb6) / 9u) * 320u;
  let xb7 = lid / 16u + 14u; let okb7 = col0 + xb7 < N;
  let tb7 = (col0 + xb7) % 9u; let oyb7 = i32(tb7 / 3u) - 1; let oxb7 = i32(tb7 % 3u) - 1; let xob7 = (g * 8u + (col0 + xb7) / 9u) * 320u;
  let xb8 = lid / 16u + 16u; let okb8 = col0 + xb8 < N;
  let tb8 = (col0 + xb8) % 9u; let oyb8 = i32(tb8 / 3u) - 1; let oxb8 = i32(tb8 % 3u) - 1; let xob8 = (g * 8u + (col0 + xb8) / 9u) * 320u;
  let xb9 = lid / 16u + 18u; let okb9 = col0 + xb9 < N;
  let tb9 = (col0 + xb9) % 9u; let oyb9 = i32(tb9 / 3u) - 1; let oxb9 = i32(tb9 % 3u) - 1; let xob9 = (g * 8u + (col0 + xb9) / 9u) * 320u;
  let xb10 = lid / 16u + 20u; let okb10 = col0 + xb10 < N;
  let tb10 = (col0 + xb10) % 9u; let oyb10 = i32(tb10 / 3u) - 1; let oxb10 = i32(tb10 % 3u) - 1; let xob10 = (g * 8u + (col0 + xb10) / 9u) * 320u;
  let xb11 = lid / 16u + 22u; let okb11 = col0 + xb11 < N;
  let tb11 = (col0 + xb11) % 9u; let oyb11 = i32(tb11 / 3u) - 1; let oxb11 = i32(tb11 % 3u) - 1; let xob11 = (g * 8u + (col0 + xb11) / 9u) * 320u;
  let xb12 = lid / 16u + 24u; let okb12 = col0 + xb12 < N;
  let tb12 = (col0 + xb12) % 9u; let oyb12 = i32(tb12 / 3u) - 1; let oxb12 = i32(tb12 % 3u) - 1; let xob12 = (g * 8u + (col0 + xb12) / 9u) * 320u;
  let xb13 = lid / 16u + 26u; let okb13 = col0 + xb13 < N;
  let tb13 = (col0 + xb13) % 9u; let oyb13 = i32(tb13 / 3u) - 1; let oxb13 = i32(tb13 % 3u) - 1; let xob13 = (g * 8u + (col0 + xb13) / 9u) * 320u;
  let xb14 = lid / 16u + 28u; let okb14 = col0 + xb14 < N;
  let tb14 = (col0 + xb14) % 9u; let oyb14 = i32(tb14 / 3u) - 1; let oxb14 = i32(tb14 % 3u) - 1; let xob14 = (g * 8u + (col0 + xb14) / 9u) * 320u;
  let xb15 = lid / 16u + 30u; let okb15 = col0 + xb15 < N;
  let tb15 = (col0 + xb15) % 9u; let oyb15 = i32(tb15 / 3u) - 1; let oxb15 = i32(tb15 % 3u) - 1; let xob15 = (g * 8u + (col0 + xb15) / 9u) * 320u;
  { let kt = kbeg;
    { let ka0 = kt + kla0; let aka0 = (ka0 / 320u) * 2560u + ka0 % 320u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = dy[aka0 + ara0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = dy[aka0 + ara1]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = dy[aka0 + ara2]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = dy[aka0 + ara3]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = dy[aka0 + ara4]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = dy[aka0 + ara5]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = dy[aka0 + ara6]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = dy[aka0 + ara7]; } }
    { let kb0 = kt + klb0; let pb0 = kb0 % 320u; let bkb0 = (kb0 / 320u) * 2560u; let pyb0 = i32(pb0 / 16u); let pxb0 = i32(pb0 % 16u); rb0 = 0.0; if (okb0 && kb0 < K) { let iy = pyb0 + oyb0; let ix = pxb0 + oxb0; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb0 = x[bkb0 + xob0 + u32(iy) * 16u + u32(ix)]; } } rb1 = 0.0; if (okb1 && kb0 < K) { let iy = pyb0 + oyb1; let ix = pxb0 + oxb1; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb1 = x[bkb0 + xob1 + u32(iy) * 16u + u32(ix)]; } } rb2 = 0.0; if (okb2 && kb0 < K) { let iy = pyb0 + oyb2; let ix = pxb0 + oxb2; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb2 = x[bkb0 + xob2 + u32(iy) * 16u + u32(ix)]; } } rb3 = 0.0; if (okb3 && kb0 < K) { let iy = pyb0 + oyb3; let ix = pxb0 + oxb3; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb3 = x[bkb0 + xob3 + u32(iy) * 16u + u32(ix)]; } } rb4 = 0.0; if (okb4 && kb0 < K) { let iy = pyb0 + oyb4; let ix = pxb0 + oxb4; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb4 = x[bkb0 + xob4 + u32(iy) * 16u + u32(ix)]; } } rb5 = 0.0; if (okb5 && kb0 < K) { let iy = pyb0 + oyb5; let ix = pxb0 + oxb5; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb5 = x[bkb0 + xob5 + u32(iy) * 16u + u32(ix)]; } } rb6 = 0.0; if (okb6 && kb0 < K) { let iy = pyb0 + oyb6; let ix = pxb0 + oxb6; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb6 = x[bkb0 + xob6 + u32(iy) * 16u + u32(ix)]; } } rb7 = 0.0; if (okb7 && kb0 < K) { let iy = pyb0 + oyb7; let ix = pxb0 + oxb7; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb7 = x[bkb0 + xob7 + u32(iy) * 16u + u32(ix)]; } } rb8 = 0.0; if (okb8 && kb0 < K) { let iy = pyb0 + oyb8; let ix = pxb0 + oxb8; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb8 = x[bkb0 + xob8 + u32(iy) * 16u + u32(ix)]; } } rb9 = 0.0; if (okb9 && kb0 < K) { let iy = pyb0 + oyb9; let ix = pxb0 + oxb9; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb9 = x[bkb0 + xob9 + u32(iy) * 16u + u32(ix)]; } } rb10 = 0.0; if (okb10 && kb0 < K) { let iy = pyb0 + oyb10; let ix = pxb0 + oxb10; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb10 = x[bkb0 + xob10 + u32(iy) * 16u + u32(ix)]; } } rb11 = 0.0; if (okb11 && kb0 < K) { let iy = pyb0 + oyb11; let ix = pxb0 + oxb11; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb11 = x[bkb0 + xob11 + u32(iy) * 16u + u32(ix)]; } } rb12 = 0.0; if (okb12 && kb0 < K) { let iy = pyb0 + oyb12; let ix = pxb0 + oxb12; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb12 = x[bkb0 + xob12 + u32(iy) * 16u + u32(ix)]; } } rb13 = 0.0; if (okb13 && kb0 < K) { let iy = pyb0 + oyb13; let ix = pxb0 + oxb13; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb13 = x[bkb0 + xob13 + u32(iy) * 16u + u32(ix)]; } } rb14 = 0.0; if (okb14 && kb0 < K) { let iy = pyb0 + oyb14; let ix = pxb0 + oxb14; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb14 = x[bkb0 + xob14 + u32(iy) * 16u + u32(ix)]; } } rb15 = 0.0; if (okb15 && kb0 < K) { let iy = pyb0 + oyb15; let ix = pxb0 + oxb15; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb15 = x[bkb0 + xob15 + u32(iy) * 16u + u32(ix)]; } } }
  }
  for (var k0 = kbeg; k0 < kend; k0 = k0 + BK) {
    As[kla0 * 5u + xa0 / 4u][xa0 % 4u] = ra0;
    As[kla0 * 5u + xa1 / 4u][xa1 % 4u] = ra1;
    As[kla0 * 5u + xa2 / 4u][xa2 % 4u] = ra2;
    As[kla0 * 5u + xa3 / 4u][xa3 % 4u] = ra3;
    As[kla0 * 5u + xa4 / 4u][xa4 % 4u] = ra4;
    As[kla0 * 5u + xa5 / 4u][xa5 % 4u] = ra5;
    As[kla0 * 5u + xa6 / 4u][xa6 % 4u] = ra6;
    As[kla0 * 5u + xa7 / 4u][xa7 % 4u] = ra7;
    Bs[klb0 * 9u + xb0 / 4u][xb0 % 4u] = rb0;
    Bs[klb0 * 9u + xb1 / 4u][xb1 % 4u] = rb1;
    Bs[klb0 * 9u + xb2 / 4u][xb2 % 4u] = rb2;
    Bs[klb0 * 9u + xb3 / 4u][xb3 % 4u] = rb3;
    Bs[klb0 * 9u + xb4 / 4u][xb4 % 4u] = rb4;
    Bs[klb0 * 9u + xb5 / 4u][xb5 % 4u] = rb5;
    Bs[klb0 * 9u + xb6 / 4u][xb6 % 4u] = rb6;
    Bs[klb0 * 9u + xb7 / 4u][xb7 % 4u] = rb7;
    Bs[klb0 * 9u + xb8 / 4u][xb8 % 4u] = rb8;
    Bs[klb0 * 9u + xb9 / 4u][xb9 % 4u] = rb9;
    Bs[klb0 * 9u + xb10 / 4u][xb10 % 4u] = rb10;
    Bs[klb0 * 9u + xb11 / 4u][xb11 % 4u] = rb11;
    Bs[klb0 * 9u + xb12 / 4u][xb12 % 4u] = rb12;
    Bs[klb0 * 9u + xb13 / 4u][xb13 % 4u] = rb13;
    Bs[klb0 * 9u + xb14 / 4u][xb14 % 4u] = rb14;
    Bs[klb0 * 9u + xb15 / 4u][xb15 % 4u] = rb15;
    workgroupBarrier();
    if (k0 + BK < kend) { let kt = k0 + BK;
      { let ka0 = kt + kla0; let aka0 = (ka0 / 320u) * 2560u + ka0 % 320u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = dy[aka0 + ara0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = dy[aka0 + ara1]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = dy[aka0 + ara2]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = dy[aka0 + ara3]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = dy[aka0 + ara4]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = dy[aka0 + ara5]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = dy[aka0 + ara6]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = dy[aka0 + ara7]; } }
      { let kb0 = kt + klb0; let pb0 = kb0 % 320u; let bkb0 = (kb0 / 320u) * 2560u; let pyb0 = i32(pb0 / 16u); let pxb0 = i32(pb0 % 16u); rb0 = 0.0; if (okb0 && kb0 < K) { let iy = pyb0 + oyb0; let ix = pxb0 + oxb0; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb0 = x[bkb0 + xob0 + u32(iy) * 16u + u32(ix)]; } } rb1 = 0.0; if (okb1 && kb0 < K) { let iy = pyb0 + oyb1; let ix = pxb0 + oxb1; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb1 = x[bkb0 + xob1 + u32(iy) * 16u + u32(ix)]; } } rb2 = 0.0; if (okb2 && kb0 < K) { let iy = pyb0 + oyb2; let ix = pxb0 + oxb2; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb2 = x[bkb0 + xob2 + u32(iy) * 16u + u32(ix)]; } } rb3 = 0.0; if (okb3 && kb0 < K) { let iy = pyb0 + oyb3; let ix = pxb0 + oxb3; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb3 = x[bkb0 + xob3 + u32(iy) * 16u + u32(ix)]; } } rb4 = 0.0; if (okb4 && kb0 < K) { let iy = pyb0 + oyb4; let ix = pxb0 + oxb4; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb4 = x[bkb0 + xob4 + u32(iy) * 16u + u32(ix)]; } } rb5 = 0.0; if (okb5 && kb0 < K) { let iy = pyb0 + oyb5; let ix = pxb0 + oxb5; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb5 = x[bkb0 + xob5 + u32(iy) * 16u + u32(ix)]; } } rb6 = 0.0; if (okb6 && kb0 < K) { let iy = pyb0 + oyb6; let ix = pxb0 + oxb6; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb6 = x[bkb0 + xob6 + u32(iy) * 16u + u32(ix)]; } } rb7 = 0.0; if (okb7 && kb0 < K) { let iy = pyb0 + oyb7; let ix = pxb0 + oxb7; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb7 = x[bkb0 + xob7 + u32(iy) * 16u + u32(ix)]; } } rb8 = 0.0; if (okb8 && kb0 < K) { let iy = pyb0 + oyb8; let ix = pxb0 + oxb8; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb8 = x[bkb0 + xob8 + u32(iy) * 16u + u32(ix)]; } } rb9 = 0.0; if (okb9 && kb0 < K) { let iy = pyb0 + oyb9; let ix = pxb0 + oxb9; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb9 = x[bkb0 + xob9 + u32(iy) * 16u + u32(ix)]; } } rb10 = 0.0; if (okb10 && kb0 < K) { let iy = pyb0 + oyb10; let ix = pxb0 + oxb10; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb10 = x[bkb0 + xob10 + u32(iy) * 16u + u32(ix)]; } } rb11 = 0.0; if (okb11 && kb0 < K) { let iy = pyb0 + oyb11; let ix = pxb0 + oxb11; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb11 = x[bkb0 + xob11 + u32(iy) * 16u + u32(ix)]; } } rb12 = 0.0; if (okb12 && kb0 < K) { let iy = pyb0 + oyb12; let ix = pxb0 + oxb12; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb12 = x[bkb0 + xob12 + u32(iy) * 16u + u32(ix)]; } } rb13 = 0.0; if (okb13 && kb0 < K) { let iy = pyb0 + oyb13; let ix = pxb0 + oxb13; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb13 = x[bkb0 + xob13 + u32(iy) * 16u + u32(ix)]; } } rb14 = 0.0; if (okb14 && kb0 < K) { let iy = pyb0 + oyb14; let ix = pxb0 + oxb14; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb14 = x[bkb0 + xob14 + u32(iy) * 16u + u32(ix)]; } } rb15 = 0.0; if (okb15 && kb0 < K) { let iy = pyb0 + oyb15; let ix = pxb0 + oxb15; if (iy >= 0 && iy < 20 && ix >= 0 && ix < 16) { rb15 = x[bkb0 + xob15 + u32(iy) * 16u + u32(ix)]; } } }
    }
    {
      let a0 = As[0u + ty];
      let b0 = Bs[0u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[5u + ty];
      let b0 = Bs[9u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[10u + ty];
      let b0 = Bs[18u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[15u + ty];
      let b0 = Bs[27u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[20u + ty];
      let b0 = Bs[36u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[25u + ty];
      let b0 = Bs[45u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[30u + ty];
      let b0 = Bs[54u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[35u + ty];
      let b0 = Bs[63u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[40u + ty];
      let b0 = Bs[72u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[45u + ty];
      let b0 = Bs[81u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[50u + ty];
      let b0 = Bs[90u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[55u + ty];
      let b0 = Bs[99u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[60u + ty];
      let b0 = Bs[108u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[65u + ty];
      let b0 = Bs[117u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[70u + ty];
      let b0 = Bs[126u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[75u + ty];
      let b0 = Bs[135u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    workgroupBarrier();
  }
  let n0_0 = col0 + (0u + tx) * 4u + 0u;
  let cb0_0 = g * 576u + n0_0;
  let n0_1 = col0 + (0u + tx) * 4u + 1u;
  let cb0_1 = g * 576u + n0_1;
  let n0_2 = col0 + (0u + tx) * 4u + 2u;
  let cb0_2 = g * 576u + n0_2;
  let n0_3 = col0 + (0u + tx) * 4u + 3u;
  let cb0_3 = g * 576u + n0_3;
  { let r = row0 + (0u + ty) * 4u + 0u; if (r < M) {
    let ro = (wid.z % 2u) * 576u + r * 72u;
    if (n0_0 < N) { y[ro + cb0_0] = acc0_0.x; } if (n0_1 < N) { y[ro + cb0_1] = acc0_0.y; } if (n0_2 < N) { y[ro + cb0_2] = acc0_0.z; } if (n0_3 < N) { y[ro + cb0_3] = acc0_0.w; }
  } }
  { let r = row0 + (0u + ty) * 4u + 1u; if (r < M) {
    let ro = (wid.z % 2u) * 576u + r * 72u;
    if (n0_0 < N) { y[ro + cb0_0] = acc1_0.x; } if (n0_1 < N) { y[ro + cb0_1] = acc1_0.y; } if (n0_2 < N) { y[ro + cb0_2] = acc1_0.z; } if (n0_3 < N) { y[ro + cb0_3] = acc1_0.w; }
  } }
  { let r = row0 + (0u + ty) * 4u + 2u; if (r < M) {
    let ro = (wid.z % 2u) * 576u + r * 72u;
    if (n0_0 < N) { y[ro + cb0_0] = acc2_0.x; } if (n0_1 < N) { y[ro + cb0_1] = acc2_0.y; } if (n0_2 < N) { y[ro + cb0_2] = acc2_0.z; } if (n0_3 < N) { y[ro + cb0_3] = acc2_0.w; }
  } }
  { let r = row0 + (0u + ty) * 4u + 3u; if (r < M) {
    let ro = (wid.z % 2u) * 576u + r * 72u;
    if (n0_0 < N) { y[ro + cb0_0] = acc3_0.x; } if (n0_1 < N) { y[ro + cb0_1] = acc3_0.y; } if (n0_2 < N) { y[ro + cb0_2] = acc3_0.z; } if (n0_3 < N) { y[ro + cb0_3] = acc3_0.w; }
  } }
}

// ---- conv2dGradWeight[8x8x3x3]:gemm[8x640x72]:reduce: workgroup [128,1,1] grid [2,1,1] bindings scratch0:read:f32 output:read_write:f32
// neura kernel: conv2dGradWeight [2, 8, 20, 16]:f32, [2, 8, 20, 16]:f32 -> [8, 8, 3, 3]:f32
// split-K reduction of the implicit GEMM: sums 2 partial products, a thread per output vec4
@group(0) @binding(0) var<storage, read> part: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 144u) { return; }
  var v = part[o];
  for (var s = 1u; s < 2u; s = s + 1u) { v = v + part[s * 144u + o]; }
  y[o] = v;
}

