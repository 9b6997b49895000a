// scratch: []
// ---- conv2d[1x8x6x5]:gemm[8x27x30]: workgroup [8,4,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: conv2d [1, 3, 6, 5]:f32, [8, 3, 3, 3]:f32 -> [1, 8, 6, 5]:f32
// implicit GEMM conv2d: y = w · im2col(x): M=8 N=30 K=27, tile 16x32x16/4x4, 8x4 threads, operands gathered on the fly
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const M = 8u;
const N = 30u;
const K = 27u;
const BK = 16u;
var<workgroup> As: array<vec4<f32>, 80>;
var<workgroup> Bs: array<vec4<f32>, 128>;

@compute @workgroup_size(8, 4)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row0 = wid.y * 16u;
  let col0 = wid.x * 32u;
  let tx = lid3.x;
  let ty = lid3.y;
  let g = 0u;
  let kbeg = 0u; let kend = K;
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
  let wra0 = (g * 8u + (row0 + xa0)) * 27u;
  let kla0 = lid % 16u;
  let xa1 = lid / 16u + 2u; let oka1 = row0 + xa1 < M;
  let wra1 = (g * 8u + (row0 + xa1)) * 27u;
  let xa2 = lid / 16u + 4u; let oka2 = row0 + xa2 < M;
  let wra2 = (g * 8u + (row0 + xa2)) * 27u;
  let xa3 = lid / 16u + 6u; let oka3 = row0 + xa3 < M;
  let wra3 = (g * 8u + (row0 + xa3)) * 27u;
  let xa4 = lid / 16u + 8u; let oka4 = row0 + xa4 < M;
  let wra4 = (g * 8u + (row0 + xa4)) * 27u;
  let xa5 = lid / 16u + 10u; let oka5 = row0 + xa5 < M;
  let wra5 = (g * 8u + (row0 + xa5)) * 27u;
  let xa6 = lid / 16u + 12u; let oka6 = row0 + xa6 < M;
  let wra6 = (g * 8u + (row0 + xa6)) * 27u;
  let xa7 = lid / 16u + 14u; let oka7 = row0 + xa7 < M;
  let wra7 = (g * 8u + (row0 + xa7)) * 27u;
  let xb0 = lid % 32u; let okb0 = col0 + xb0 < N;
  let pb0 = (col0 + xb0) % 30u; let iyb0 = i32(pb0 / 5u) - 1; let ixb0 = i32(pb0 % 5u) - 1; let xbb0 = ((col0 + xb0) / 30u) * 90u + g * 90u;
  let klb0 = lid / 32u + 0u;
  let klb1 = lid / 32u + 1u;
  let klb2 = lid / 32u + 2u;
  let klb3 = lid / 32u + 3u;
  let klb4 = lid / 32u + 4u;
  let klb5 = lid / 32u + 5u;
  let klb6 = lid / 32u + 6u;
  let klb7 = lid / 32u + 7u;
  let klb8 = lid / 32u + 8u;
  let klb9 = lid / 32u + 9u;
  let klb10 = lid / 32u + 10u;
  let klb11 = lid / 32u + 11u;
  let klb12 = lid / 32u + 12u;
  let klb13 = lid / 32u + 13u;
  let klb14 = lid / 32u + 14u;
  let klb15 = lid / 32u + 15u;
  { let kt = kbeg;
    { let ka0 = kt + kla0; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + ka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + ka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + ka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + ka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + ka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + ka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + ka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + ka0]; } }
    { let kb0 = kt + klb0; let cib0 = (kb0 / 9u) * 30u; let tb0 = kb0 % 9u; let kyb0 = i32(tb0 / 3u); let kxb0 = i32(tb0 % 3u); rb0 = 0.0; if (okb0 && kb0 < K) { let iy = iyb0 + kyb0; let ix = ixb0 + kxb0; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb0 = x[xbb0 + cib0 + u32(iy) * 5u + u32(ix)]; } } let kb1 = kt + klb1; let cib1 = (kb1 / 9u) * 30u; let tb1 = kb1 % 9u; let kyb1 = i32(tb1 / 3u); let kxb1 = i32(tb1 % 3u); rb1 = 0.0; if (okb0 && kb1 < K) { let iy = iyb0 + kyb1; let ix = ixb0 + kxb1; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb1 = x[xbb0 + cib1 + u32(iy) * 5u + u32(ix)]; } } let kb2 = kt + klb2; let cib2 = (kb2 / 9u) * 30u; let tb2 = kb2 % 9u; let kyb2 = i32(tb2 / 3u); let kxb2 = i32(tb2 % 3u); rb2 = 0.0; if (okb0 && kb2 < K) { let iy = iyb0 + kyb2; let ix = ixb0 + kxb2; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb2 = x[xbb0 + cib2 + u32(iy) * 5u + u32(ix)]; } } let kb3 = kt + klb3; let cib3 = (kb3 / 9u) * 30u; let tb3 = kb3 % 9u; let kyb3 = i32(tb3 / 3u); let kxb3 = i32(tb3 % 3u); rb3 = 0.0; if (okb0 && kb3 < K) { let iy = iyb0 + kyb3; let ix = ixb0 + kxb3; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb3 = x[xbb0 + cib3 + u32(iy) * 5u + u32(ix)]; } } let kb4 = kt + klb4; let cib4 = (kb4 / 9u) * 30u; let tb4 = kb4 % 9u; let kyb4 = i32(tb4 / 3u); let kxb4 = i32(tb4 % 3u); rb4 = 0.0; if (okb0 && kb4 < K) { let iy = iyb0 + kyb4; let ix = ixb0 + kxb4; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb4 = x[xbb0 + cib4 + u32(iy) * 5u + u32(ix)]; } } let kb5 = kt + klb5; let cib5 = (kb5 / 9u) * 30u; let tb5 = kb5 % 9u; let kyb5 = i32(tb5 / 3u); let kxb5 = i32(tb5 % 3u); rb5 = 0.0; if (okb0 && kb5 < K) { let iy = iyb0 + kyb5; let ix = ixb0 + kxb5; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb5 = x[xbb0 + cib5 + u32(iy) * 5u + u32(ix)]; } } let kb6 = kt + klb6; let cib6 = (kb6 / 9u) * 30u; let tb6 = kb6 % 9u; let kyb6 = i32(tb6 / 3u); let kxb6 = i32(tb6 % 3u); rb6 = 0.0; if (okb0 && kb6 < K) { let iy = iyb0 + kyb6; let ix = ixb0 + kxb6; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb6 = x[xbb0 + cib6 + u32(iy) * 5u + u32(ix)]; } } let kb7 = kt + klb7; let cib7 = (kb7 / 9u) * 30u; let tb7 = kb7 % 9u; let kyb7 = i32(tb7 / 3u); let kxb7 = i32(tb7 % 3u); rb7 = 0.0; if (okb0 && kb7 < K) { let iy = iyb0 + kyb7; let ix = ixb0 + kxb7; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb7 = x[xbb0 + cib7 + u32(iy) * 5u + u32(ix)]; } } let kb8 = kt + klb8; let cib8 = (kb8 / 9u) * 30u; let tb8 = kb8 % 9u; let kyb8 = i32(tb8 / 3u); let kxb8 = i32(tb8 % 3u); rb8 = 0.0; if (okb0 && kb8 < K) { let iy = iyb0 + kyb8; let ix = ixb0 + kxb8; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb8 = x[xbb0 + cib8 + u32(iy) * 5u + u32(ix)]; } } let kb9 = kt + klb9; let cib9 = (kb9 / 9u) * 30u; let tb9 = kb9 % 9u; let kyb9 = i32(tb9 / 3u); let kxb9 = i32(tb9 % 3u); rb9 = 0.0; if (okb0 && kb9 < K) { let iy = iyb0 + kyb9; let ix = ixb0 + kxb9; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb9 = x[xbb0 + cib9 + u32(iy) * 5u + u32(ix)]; } } let kb10 = kt + klb10; let cib10 = (kb10 / 9u) * 30u; let tb10 = kb10 % 9u; let kyb10 = i32(tb10 / 3u); let kxb10 = i32(tb10 % 3u); rb10 = 0.0; if (okb0 && kb10 < K) { let iy = iyb0 + kyb10; let ix = ixb0 + kxb10; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb10 = x[xbb0 + cib10 + u32(iy) * 5u + u32(ix)]; } } let kb11 = kt + klb11; let cib11 = (kb11 / 9u) * 30u; let tb11 = kb11 % 9u; let kyb11 = i32(tb11 / 3u); let kxb11 = i32(tb11 % 3u); rb11 = 0.0; if (okb0 && kb11 < K) { let iy = iyb0 + kyb11; let ix = ixb0 + kxb11; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb11 = x[xbb0 + cib11 + u32(iy) * 5u + u32(ix)]; } } let kb12 = kt + klb12; let cib12 = (kb12 / 9u) * 30u; let tb12 = kb12 % 9u; let kyb12 = i32(tb12 / 3u); let kxb12 = i32(tb12 % 3u); rb12 = 0.0; if (okb0 && kb12 < K) { let iy = iyb0 + kyb12; let ix = ixb0 + kxb12; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb12 = x[xbb0 + cib12 + u32(iy) * 5u + u32(ix)]; } } let kb13 = kt + klb13; let cib13 = (kb13 / 9u) * 30u; let tb13 = kb13 % 9u; let kyb13 = i32(tb13 / 3u); let kxb13 = i32(tb13 % 3u); rb13 = 0.0; if (okb0 && kb13 < K) { let iy = iyb0 + kyb13; let ix = ixb0 + kxb13; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb13 = x[xbb0 + cib13 + u32(iy) * 5u + u32(ix)]; } } let kb14 = kt + klb14; let cib14 = (kb14 / 9u) * 30u; let tb14 = kb14 % 9u; let kyb14 = i32(tb14 / 3u); let kxb14 = i32(tb14 % 3u); rb14 = 0.0; if (okb0 && kb14 < K) { let iy = iyb0 + kyb14; let ix = ixb0 + kxb14; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb14 = x[xbb0 + cib14 + u32(iy) * 5u + u32(ix)]; } } let kb15 = kt + klb15; let cib15 = (kb15 / 9u) * 30u; let tb15 = kb15 % 9u; let kyb15 = i32(tb15 / 3u); let kxb15 = i32(tb15 % 3u); rb15 = 0.0; if (okb0 && kb15 < K) { let iy = iyb0 + kyb15; let ix = ixb0 + kxb15; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb15 = x[xbb0 + cib15 + u32(iy) * 5u + u32(ix)]; } } }
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
    Bs[klb0 * 8u + xb0 / 4u][xb0 % 4u] = rb0;
    Bs[klb1 * 8u + xb0 / 4u][xb0 % 4u] = rb1;
    Bs[klb2 * 8u + xb0 / 4u][xb0 % 4u] = rb2;
    Bs[klb3 * 8u + xb0 / 4u][xb0 % 4u] = rb3;
    Bs[klb4 * 8u + xb0 / 4u][xb0 % 4u] = rb4;
    Bs[klb5 * 8u + xb0 / 4u][xb0 % 4u] = rb5;
    Bs[klb6 * 8u + xb0 / 4u][xb0 % 4u] = rb6;
    Bs[klb7 * 8u + xb0 / 4u][xb0 % 4u] = rb7;
    Bs[klb8 * 8u + xb0 / 4u][xb0 % 4u] = rb8;
    Bs[klb9 * 8u + xb0 / 4u][xb0 % 4u] = rb9;
    Bs[klb10 * 8u + xb0 / 4u][xb0 % 4u] = rb10;
    Bs[klb11 * 8u + xb0 / 4u][xb0 % 4u] = rb11;
    Bs[klb12 * 8u + xb0 / 4u][xb0 % 4u] = rb12;
    Bs[klb13 * 8u + xb0 / 4u][xb0 % 4u] = rb13;
    Bs[klb14 * 8u + xb0 / 4u][xb0 % 4u] = rb14;
    Bs[klb15 * 8u + xb0 / 4u][xb0 % 4u] = rb15;
    workgroupBarrier();
    if (k0 + BK < kend) { let kt = k0 + BK;
      { let ka0 = kt + kla0; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + ka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + ka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + ka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + ka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + ka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + ka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + ka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + ka0]; } }
      { let kb0 = kt + klb0; let cib0 = (kb0 / 9u) * 30u; let tb0 = kb0 % 9u; let kyb0 = i32(tb0 / 3u); let kxb0 = i32(tb0 % 3u); rb0 = 0.0; if (okb0 && kb0 < K) { let iy = iyb0 + kyb0; let ix = ixb0 + kxb0; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb0 = x[xbb0 + cib0 + u32(iy) * 5u + u32(ix)]; } } let kb1 = kt + klb1; let cib1 = (kb1 / 9u) * 30u; let tb1 = kb1 % 9u; let kyb1 = i32(tb1 / 3u); let kxb1 = i32(tb1 % 3u); rb1 = 0.0; if (okb0 && kb1 < K) { let iy = iyb0 + kyb1; let ix = ixb0 + kxb1; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb1 = x[xbb0 + cib1 + u32(iy) * 5u + u32(ix)]; } } let kb2 = kt + klb2; let cib2 = (kb2 / 9u) * 30u; let tb2 = kb2 % 9u; let kyb2 = i32(tb2 / 3u); let kxb2 = i32(tb2 % 3u); rb2 = 0.0; if (okb0 && kb2 < K) { let iy = iyb0 + kyb2; let ix = ixb0 + kxb2; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb2 = x[xbb0 + cib2 + u32(iy) * 5u + u32(ix)]; } } let kb3 = kt + klb3; let cib3 = (kb3 / 9u) * 30u; let tb3 = kb3 % 9u; let kyb3 = i32(tb3 / 3u); let kxb3 = i32(tb3 % 3u); rb3 = 0.0; if (okb0 && kb3 < K) { let iy = iyb0 + kyb3; let ix = ixb0 + kxb3; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb3 = x[xbb0 + cib3 + u32(iy) * 5u + u32(ix)]; } } let kb4 = kt + klb4; let cib4 = (kb4 / 9u) * 30u; let tb4 = kb4 % 9u; let kyb4 = i32(tb4 / 3u); let kxb4 = i32(tb4 % 3u); rb4 = 0.0; if (okb0 && kb4 < K) { let iy = iyb0 + kyb4; let ix = ixb0 + kxb4; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb4 = x[xbb0 + cib4 + u32(iy) * 5u + u32(ix)]; } } let kb5 = kt + klb5; let cib5 = (kb5 / 9u) * 30u; let tb5 = kb5 % 9u; let kyb5 = i32(tb5 / 3u); let kxb5 = i32(tb5 % 3u); rb5 = 0.0; if (okb0 && kb5 < K) { let iy = iyb0 + kyb5; let ix = ixb0 + kxb5; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb5 = x[xbb0 + cib5 + u32(iy) * 5u + u32(ix)]; } } let kb6 = kt + klb6; let cib6 = (kb6 / 9u) * 30u; let tb6 = kb6 % 9u; let kyb6 = i32(tb6 / 3u); let kxb6 = i32(tb6 % 3u); rb6 = 0.0; if (okb0 && kb6 < K) { let iy = iyb0 + kyb6; let ix = ixb0 + kxb6; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb6 = x[xbb0 + cib6 + u32(iy) * 5u + u32(ix)]; } } let kb7 = kt + klb7; let cib7 = (kb7 / 9u) * 30u; let tb7 = kb7 % 9u; let kyb7 = i32(tb7 / 3u); let kxb7 = i32(tb7 % 3u); rb7 = 0.0; if (okb0 && kb7 < K) { let iy = iyb0 + kyb7; let ix = ixb0 + kxb7; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb7 = x[xbb0 + cib7 + u32(iy) * 5u + u32(ix)]; } } let kb8 = kt + klb8; let cib8 = (kb8 / 9u) * 30u; let tb8 = kb8 % 9u; let kyb8 = i32(tb8 / 3u); let kxb8 = i32(tb8 % 3u); rb8 = 0.0; if (okb0 && kb8 < K) { let iy = iyb0 + kyb8; let ix = ixb0 + kxb8; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb8 = x[xbb0 + cib8 + u32(iy) * 5u + u32(ix)]; } } let kb9 = kt + klb9; let cib9 = (kb9 / 9u) * 30u; let tb9 = kb9 % 9u; let kyb9 = i32(tb9 / 3u); let kxb9 = i32(tb9 % 3u); rb9 = 0.0; if (okb0 && kb9 < K) { let iy = iyb0 + kyb9; let ix = ixb0 + kxb9; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb9 = x[xbb0 + cib9 + u32(iy) * 5u + u32(ix)]; } } let kb10 = kt + klb10; let cib10 = (kb10 / 9u) * 30u; let tb10 = kb10 % 9u; let kyb10 = i32(tb10 / 3u); let kxb10 = i32(tb10 % 3u); rb10 = 0.0; if (okb0 && kb10 < K) { let iy = iyb0 + kyb10; let ix = ixb0 + kxb10; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb10 = x[xbb0 + cib10 + u32(iy) * 5u + u32(ix)]; } } let kb11 = kt + klb11; let cib11 = (kb11 / 9u) * 30u; let tb11 = kb11 % 9u; let kyb11 = i32(tb11 / 3u); let kxb11 = i32(tb11 % 3u); rb11 = 0.0; if (okb0 && kb11 < K) { let iy = iyb0 + kyb11; let ix = ixb0 + kxb11; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb11 = x[xbb0 + cib11 + u32(iy) * 5u + u32(ix)]; } } let kb12 = kt + klb12; let cib12 = (kb12 / 9u) * 30u; let tb12 = kb12 % 9u; let kyb12 = i32(tb12 / 3u); let kxb12 = i32(tb12 % 3u); rb12 = 0.0; if (okb0 && kb12 < K) { let iy = iyb0 + kyb12; let ix = ixb0 + kxb12; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb12 = x[xbb0 + cib12 + u32(iy) * 5u + u32(ix)]; } } let kb13 = kt + klb13; let cib13 = (kb13 / 9u) * 30u; let tb13 = kb13 % 9u; let kyb13 = i32(tb13 / 3u); let kxb13 = i32(tb13 % 3u); rb13 = 0.0; if (okb0 && kb13 < K) { let iy = iyb0 + kyb13; let ix = ixb0 + kxb13; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb13 = x[xbb0 + cib13 + u32(iy) * 5u + u32(ix)]; } } let kb14 = kt + klb14; let cib14 = (kb14 / 9u) * 30u; let tb14 = kb14 % 9u; let kyb14 = i32(tb14 / 3u); let kxb14 = i32(tb14 % 3u); rb14 = 0.0; if (okb0 && kb14 < K) { let iy = iyb0 + kyb14; let ix = ixb0 + kxb14; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb14 = x[xbb0 + cib14 + u32(iy) * 5u + u32(ix)]; } } let kb15 = kt + klb15; let cib15 = (kb15 / 9u) * 30u; let tb15 = kb15 % 9u; let kyb15 = i32(tb15 / 3u); let kxb15 = i32(tb15 % 3u); rb15 = 0.0; if (okb0 && kb15 < K) { let iy = iyb0 + kyb15; let ix = ixb0 + kxb15; if (iy >= 0 && iy < 6 && ix >= 0 && ix < 5) { rb15 = x[xbb0 + cib15 + u32(iy) * 5u + u32(ix)]; } } }
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
      let b0 = Bs[8u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[10u + ty];
      let b0 = Bs[16u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[15u + ty];
      let b0 = Bs[24u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[20u + ty];
      let b0 = Bs[32u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[25u + ty];
      let b0 = Bs[40u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[30u + ty];
      let b0 = Bs[48u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[35u + ty];
      let b0 = Bs[56u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[40u + ty];
      let b0 = Bs[64u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[45u + ty];
      let b0 = Bs[72u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[50u + ty];
      let b0 = Bs[80u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[55u + ty];
      let b0 = Bs[88u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[60u + ty];
      let b0 = Bs[96u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[65u + ty];
      let b0 = Bs[104u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[70u + ty];
      let b0 = Bs[112u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    {
      let a0 = As[75u + ty];
      let b0 = Bs[120u + tx];
      acc0_0 = fma(vec4<f32>(a0.x), b0, acc0_0);
      acc1_0 = fma(vec4<f32>(a0.y), b0, acc1_0);
      acc2_0 = fma(vec4<f32>(a0.z), b0, acc2_0);
      acc3_0 = fma(vec4<f32>(a0.w), b0, acc3_0);
    }
    workgroupBarrier();
  }
  let n0_0 = col0 + (0u + tx) * 4u + 0u;
  let cb0_0 = (n0_0 / 30u) * 240u + g * 240u + n0_0 % 30u;
  let n0_1 = col0 + (0u + tx) * 4u + 1u;
  let cb0_1 = (n0_1 / 30u) * 240u + g * 240u + n0_1 % 30u;
  let n0_2 = col0 + (0u + tx) * 4u + 2u;
  let cb0_2 = (n0_2 / 30u) * 240u + g * 240u + n0_2 % 30u;
  let n0_3 = col0 + (0u + tx) * 4u + 3u;
  let cb0_3 = (n0_3 / 30u) * 240u + g * 240u + n0_3 % 30u;
  { let r = row0 + (0u + ty) * 4u + 0u; if (r < M) {
    let ro = r * 30u;
    if (n0_0 < N) { y[ro + cb0_0] = acc0_0.x; } if (n0_1 < N) { y[ro + cb0_1] = acc0_0.y; } if (n0_2 < N) { y[ro + cb0_2] = acc0_0.z; } if (n0_3 < N) { y[ro + cb0_3] = acc0_0.w; }
  } }
  { let r = row0 + (0u + ty) * 4u + 1u; if (r < M) {
    let ro = r * 30u;
    if (n0_0 < N) { y[ro + cb0_0] = acc1_0.x; } if (n0_1 < N) { y[ro + cb0_1] = acc1_0.y; } if (n0_2 < N) { y[ro + cb0_2] = acc1_0.z; } if (n0_3 < N) { y[ro + cb0_3] = acc1_0.w; }
  } }
  { let r = row0 + (0u + ty) * 4u + 2u; if (r < M) {
    let ro = r * 30u;
    if (n0_0 < N) { y[ro + cb0_0] = acc2_0.x; } if (n0_1 < N) { y[ro + cb0_1] = acc2_0.y; } if (n0_2 < N) { y[ro + cb0_2] = acc2_0.z; } if (n0_3 < N) { y[ro + cb0_3] = acc2_0.w; }
  } }
  { let r = row0 + (0u + ty) * 4u + 3u; if (r < M) {
    let ro = r * 30u;
    if (n0_0 < N) { y[ro + cb0_0] = acc3_0.x; } if (n0_1 < N) { y[ro + cb0_1] = acc3_0.y; } if (n0_2 < N) { y[ro + cb0_2] = acc3_0.z; } if (n0_3 < N) { y[ro + cb0_3] = acc3_0.w; }
  } }
}

