// scratch: []
// ---- conv2dGradInput[1x9x6x5]:gemm[9x32x6]:phase00: workgroup [8,4,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: conv2dGradInput [1, 8, 3, 3]:f32, [8, 9, 3, 3]:f32 -> [1, 9, 6, 5]:f32
// implicit GEMM conv2dGradInput, phase (0, 0) of the stride: dx = wᵀ · dy over its 2x2 taps: M=9 N=6 K=32, tile 16x32x16/4x4, 8x4 threads, operands gathered on the fly
@group(0) @binding(0) var<storage, read> dy: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const M = 9u;
const N = 6u;
const K = 32u;
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
  let wra0 = g * 648u + (row0 + xa0) * 9u;
  let kla0 = lid % 16u;
  let xa1 = lid / 16u + 2u; let oka1 = row0 + xa1 < M;
  let wra1 = g * 648u + (row0 + xa1) * 9u;
  let xa2 = lid / 16u + 4u; let oka2 = row0 + xa2 < M;
  let wra2 = g * 648u + (row0 + xa2) * 9u;
  let xa3 = lid / 16u + 6u; let oka3 = row0 + xa3 < M;
  let wra3 = g * 648u + (row0 + xa3) * 9u;
  let xa4 = lid / 16u + 8u; let oka4 = row0 + xa4 < M;
  let wra4 = g * 648u + (row0 + xa4) * 9u;
  let xa5 = lid / 16u + 10u; let oka5 = row0 + xa5 < M;
  let wra5 = g * 648u + (row0 + xa5) * 9u;
  let xa6 = lid / 16u + 12u; let oka6 = row0 + xa6 < M;
  let wra6 = g * 648u + (row0 + xa6) * 9u;
  let xa7 = lid / 16u + 14u; let oka7 = row0 + xa7 < M;
  let wra7 = g * 648u + (row0 + xa7) * 9u;
  let xb0 = lid % 32u; let okb0 = col0 + xb0 < N;
  let oyb0 = i32(((col0 + xb0) % 6u) / 2u) + 1; let oxb0 = i32((col0 + xb0) % 2u) + 1; let dbb0 = ((col0 + xb0) / 6u) * 72u + g * 72u;
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
    { let ka0 = kt + kla0; let wka0 = (ka0 / 4u) * 81u + (0u + ((ka0 % 4u) / 2u) * 2u) * 3u + 0u + (ka0 % 2u) * 2u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + wka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + wka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + wka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + wka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + wka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + wka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + wka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + wka0]; } }
    { let kb0 = kt + klb0; let qob0 = (kb0 / 4u) * 9u; let ub0 = i32((kb0 % 4u) / 2u); let vb0 = i32(kb0 % 2u); rb0 = 0.0; if (okb0 && kb0 < K) { let oy = oyb0 - ub0; let ox = oxb0 - vb0; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb0 = dy[dbb0 + qob0 + u32(oy) * 3u + u32(ox)]; } } let kb1 = kt + klb1; let qob1 = (kb1 / 4u) * 9u; let ub1 = i32((kb1 % 4u) / 2u); let vb1 = i32(kb1 % 2u); rb1 = 0.0; if (okb0 && kb1 < K) { let oy = oyb0 - ub1; let ox = oxb0 - vb1; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb1 = dy[dbb0 + qob1 + u32(oy) * 3u + u32(ox)]; } } let kb2 = kt + klb2; let qob2 = (kb2 / 4u) * 9u; let ub2 = i32((kb2 % 4u) / 2u); let vb2 = i32(kb2 % 2u); rb2 = 0.0; if (okb0 && kb2 < K) { let oy = oyb0 - ub2; let ox = oxb0 - vb2; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb2 = dy[dbb0 + qob2 + u32(oy) * 3u + u32(ox)]; } } let kb3 = kt + klb3; let qob3 = (kb3 / 4u) * 9u; let ub3 = i32((kb3 % 4u) / 2u); let vb3 = i32(kb3 % 2u); rb3 = 0.0; if (okb0 && kb3 < K) { let oy = oyb0 - ub3; let ox = oxb0 - vb3; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb3 = dy[dbb0 + qob3 + u32(oy) * 3u + u32(ox)]; } } let kb4 = kt + klb4; let qob4 = (kb4 / 4u) * 9u; let ub4 = i32((kb4 % 4u) / 2u); let vb4 = i32(kb4 % 2u); rb4 = 0.0; if (okb0 && kb4 < K) { let oy = oyb0 - ub4; let ox = oxb0 - vb4; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb4 = dy[dbb0 + qob4 + u32(oy) * 3u + u32(ox)]; } } let kb5 = kt + klb5; let qob5 = (kb5 / 4u) * 9u; let ub5 = i32((kb5 % 4u) / 2u); let vb5 = i32(kb5 % 2u); rb5 = 0.0; if (okb0 && kb5 < K) { let oy = oyb0 - ub5; let ox = oxb0 - vb5; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb5 = dy[dbb0 + qob5 + u32(oy) * 3u + u32(ox)]; } } let kb6 = kt + klb6; let qob6 = (kb6 / 4u) * 9u; let ub6 = i32((kb6 % 4u) / 2u); let vb6 = i32(kb6 % 2u); rb6 = 0.0; if (okb0 && kb6 < K) { let oy = oyb0 - ub6; let ox = oxb0 - vb6; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb6 = dy[dbb0 + qob6 + u32(oy) * 3u + u32(ox)]; } } let kb7 = kt + klb7; let qob7 = (kb7 / 4u) * 9u; let ub7 = i32((kb7 % 4u) / 2u); let vb7 = i32(kb7 % 2u); rb7 = 0.0; if (okb0 && kb7 < K) { let oy = oyb0 - ub7; let ox = oxb0 - vb7; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb7 = dy[dbb0 + qob7 + u32(oy) * 3u + u32(ox)]; } } let kb8 = kt + klb8; let qob8 = (kb8 / 4u) * 9u; let ub8 = i32((kb8 % 4u) / 2u); let vb8 = i32(kb8 % 2u); rb8 = 0.0; if (okb0 && kb8 < K) { let oy = oyb0 - ub8; let ox = oxb0 - vb8; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb8 = dy[dbb0 + qob8 + u32(oy) * 3u + u32(ox)]; } } let kb9 = kt + klb9; let qob9 = (kb9 / 4u) * 9u; let ub9 = i32((kb9 % 4u) / 2u); let vb9 = i32(kb9 % 2u); rb9 = 0.0; if (okb0 && kb9 < K) { let oy = oyb0 - ub9; let ox = oxb0 - vb9; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb9 = dy[dbb0 + qob9 + u32(oy) * 3u + u32(ox)]; } } let kb10 = kt + klb10; let qob10 = (kb10 / 4u) * 9u; let ub10 = i32((kb10 % 4u) / 2u); let vb10 = i32(kb10 % 2u); rb10 = 0.0; if (okb0 && kb10 < K) { let oy = oyb0 - ub10; let ox = oxb0 - vb10; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb10 = dy[dbb0 + qob10 + u32(oy) * 3u + u32(ox)]; } } let kb11 = kt + klb11; let qob11 = (kb11 / 4u) * 9u; let ub11 = i32((kb11 % 4u) / 2u); let vb11 = i32(kb11 % 2u); rb11 = 0.0; if (okb0 && kb11 < K) { let oy = oyb0 - ub11; let ox = oxb0 - vb11; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb11 = dy[dbb0 + qob11 + u32(oy) * 3u + u32(ox)]; } } let kb12 = kt + klb12; let qob12 = (kb12 / 4u) * 9u; let ub12 = i32((kb12 % 4u) / 2u); let vb12 = i32(kb12 % 2u); rb12 = 0.0; if (okb0 && kb12 < K) { let oy = oyb0 - ub12; let ox = oxb0 - vb12; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb12 = dy[dbb0 + qob12 + u32(oy) * 3u + u32(ox)]; } } let kb13 = kt + klb13; let qob13 = (kb13 / 4u) * 9u; let ub13 = i32((kb13 % 4u) / 2u); let vb13 = i32(kb13 % 2u); rb13 = 0.0; if (okb0 && kb13 < K) { let oy = oyb0 - ub13; let ox = oxb0 - vb13; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb13 = dy[dbb0 + qob13 + u32(oy) * 3u + u32(ox)]; } } let kb14 = kt + klb14; let qob14 = (kb14 / 4u) * 9u; let ub14 = i32((kb14 % 4u) / 2u); let vb14 = i32(kb14 % 2u); rb14 = 0.0; if (okb0 && kb14 < K) { let oy = oyb0 - ub14; let ox = oxb0 - vb14; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb14 = dy[dbb0 + qob14 + u32(oy) * 3u + u32(ox)]; } } let kb15 = kt + klb15; let qob15 = (kb15 / 4u) * 9u; let ub15 = i32((kb15 % 4u) / 2u); let vb15 = i32(kb15 % 2u); rb15 = 0.0; if (okb0 && kb15 < K) { let oy = oyb0 - ub15; let ox = oxb0 - vb15; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb15 = dy[dbb0 + qob15 + u32(oy) * 3u + u32(ox)]; } } }
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
      { let ka0 = kt + kla0; let wka0 = (ka0 / 4u) * 81u + (0u + ((ka0 % 4u) / 2u) * 2u) * 3u + 0u + (ka0 % 2u) * 2u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + wka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + wka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + wka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + wka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + wka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + wka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + wka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + wka0]; } }
      { let kb0 = kt + klb0; let qob0 = (kb0 / 4u) * 9u; let ub0 = i32((kb0 % 4u) / 2u); let vb0 = i32(kb0 % 2u); rb0 = 0.0; if (okb0 && kb0 < K) { let oy = oyb0 - ub0; let ox = oxb0 - vb0; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb0 = dy[dbb0 + qob0 + u32(oy) * 3u + u32(ox)]; } } let kb1 = kt + klb1; let qob1 = (kb1 / 4u) * 9u; let ub1 = i32((kb1 % 4u) / 2u); let vb1 = i32(kb1 % 2u); rb1 = 0.0; if (okb0 && kb1 < K) { let oy = oyb0 - ub1; let ox = oxb0 - vb1; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb1 = dy[dbb0 + qob1 + u32(oy) * 3u + u32(ox)]; } } let kb2 = kt + klb2; let qob2 = (kb2 / 4u) * 9u; let ub2 = i32((kb2 % 4u) / 2u); let vb2 = i32(kb2 % 2u); rb2 = 0.0; if (okb0 && kb2 < K) { let oy = oyb0 - ub2; let ox = oxb0 - vb2; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb2 = dy[dbb0 + qob2 + u32(oy) * 3u + u32(ox)]; } } let kb3 = kt + klb3; let qob3 = (kb3 / 4u) * 9u; let ub3 = i32((kb3 % 4u) / 2u); let vb3 = i32(kb3 % 2u); rb3 = 0.0; if (okb0 && kb3 < K) { let oy = oyb0 - ub3; let ox = oxb0 - vb3; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb3 = dy[dbb0 + qob3 + u32(oy) * 3u + u32(ox)]; } } let kb4 = kt + klb4; let qob4 = (kb4 / 4u) * 9u; let ub4 = i32((kb4 % 4u) / 2u); let vb4 = i32(kb4 % 2u); rb4 = 0.0; if (okb0 && kb4 < K) { let oy = oyb0 - ub4; let ox = oxb0 - vb4; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb4 = dy[dbb0 + qob4 + u32(oy) * 3u + u32(ox)]; } } let kb5 = kt + klb5; let qob5 = (kb5 / 4u) * 9u; let ub5 = i32((kb5 % 4u) / 2u); let vb5 = i32(kb5 % 2u); rb5 = 0.0; if (okb0 && kb5 < K) { let oy = oyb0 - ub5; let ox = oxb0 - vb5; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb5 = dy[dbb0 + qob5 + u32(oy) * 3u + u32(ox)]; } } let kb6 = kt + klb6; let qob6 = (kb6 / 4u) * 9u; let ub6 = i32((kb6 % 4u) / 2u); let vb6 = i32(kb6 % 2u); rb6 = 0.0; if (okb0 && kb6 < K) { let oy = oyb0 - ub6; let ox = oxb0 - vb6; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb6 = dy[dbb0 + qob6 + u32(oy) * 3u + u32(ox)]; } } let kb7 = kt + klb7; let qob7 = (kb7 / 4u) * 9u; let ub7 = i32((kb7 % 4u) / 2u); let vb7 = i32(kb7 % 2u); rb7 = 0.0; if (okb0 && kb7 < K) { let oy = oyb0 - ub7; let ox = oxb0 - vb7; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb7 = dy[dbb0 + qob7 + u32(oy) * 3u + u32(ox)]; } } let kb8 = kt + klb8; let qob8 = (kb8 / 4u) * 9u; let ub8 = i32((kb8 % 4u) / 2u); let vb8 = i32(kb8 % 2u); rb8 = 0.0; if (okb0 && kb8 < K) { let oy = oyb0 - ub8; let ox = oxb0 - vb8; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb8 = dy[dbb0 + qob8 + u32(oy) * 3u + u32(ox)]; } } let kb9 = kt + klb9; let qob9 = (kb9 / 4u) * 9u; let ub9 = i32((kb9 % 4u) / 2u); let vb9 = i32(kb9 % 2u); rb9 = 0.0; if (okb0 && kb9 < K) { let oy = oyb0 - ub9; let ox = oxb0 - vb9; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb9 = dy[dbb0 + qob9 + u32(oy) * 3u + u32(ox)]; } } let kb10 = kt + klb10; let qob10 = (kb10 / 4u) * 9u; let ub10 = i32((kb10 % 4u) / 2u); let vb10 = i32(kb10 % 2u); rb10 = 0.0; if (okb0 && kb10 < K) { let oy = oyb0 - ub10; let ox = oxb0 - vb10; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb10 = dy[dbb0 + qob10 + u32(oy) * 3u + u32(ox)]; } } let kb11 = kt + klb11; let qob11 = (kb11 / 4u) * 9u; let ub11 = i32((kb11 % 4u) / 2u); let vb11 = i32(kb11 % 2u); rb11 = 0.0; if (okb0 && kb11 < K) { let oy = oyb0 - ub11; let ox = oxb0 - vb11; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb11 = dy[dbb0 + qob11 + u32(oy) * 3u + u32(ox)]; } } let kb12 = kt + klb12; let qob12 = (kb12 / 4u) * 9u; let ub12 = i32((kb12 % 4u) / 2u); let vb12 = i32(kb12 % 2u); rb12 = 0.0; if (okb0 && kb12 < K) { let oy = oyb0 - ub12; let ox = oxb0 - vb12; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb12 = dy[dbb0 + qob12 + u32(oy) * 3u + u32(ox)]; } } let kb13 = kt + klb13; let qob13 = (kb13 / 4u) * 9u; let ub13 = i32((kb13 % 4u) / 2u); let vb13 = i32(kb13 % 2u); rb13 = 0.0; if (okb0 && kb13 < K) { let oy = oyb0 - ub13; let ox = oxb0 - vb13; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb13 = dy[dbb0 + qob13 + u32(oy) * 3u + u32(ox)]; } } let kb14 = kt + klb14; let qob14 = (kb14 / 4u) * 9u; let ub14 = i32((kb14 % 4u) / 2u); let vb14 = i32(kb14 % 2u); rb14 = 0.0; if (okb0 && kb14 < K) { let oy = oyb0 - ub14; let ox = oxb0 - vb14; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb14 = dy[dbb0 + qob14 + u32(oy) * 3u + u32(ox)]; } } let kb15 = kt + klb15; let qob15 = (kb15 / 4u) * 9u; let ub15 = i32((kb15 % 4u) / 2u); let vb15 = i32(kb15 % 2u); rb15 = 0.0; if (okb0 && kb15 < K) { let oy = oyb0 - ub15; let ox = oxb0 - vb15; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb15 = dy[dbb0 + qob15 + u32(oy) * 3u + u32(ox)]; } } }
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
  let cb0_0 = (n0_0 / 6u) * 270u + g * 270u + (1u + ((n0_0 % 6u) / 2u) * 2u) * 5u + 1u + (n0_0 % 2u) * 2u;
  let n0_1 = col0 + (0u + tx) * 4u + 1u;
  let cb0_1 = (n0_1 / 6u) * 270u + g * 270u + (1u + ((n0_1 % 6u) / 2u) * 2u) * 5u + 1u + (n0_1 % 2u) * 2u;
  let n0_2 = col0 + (0u + tx) * 4u + 2u;
  let cb0_2 = (n0_2 / 6u) * 270u + g * 270u + (1u + ((n0_2 % 6u) / 2u) * 2u) * 5u + 1u + (n0_2 % 2u) * 2u;
  let n0_3 = col0 + (0u + tx) * 4u + 3u;
  let cb0_3 = (n0_3 / 6u) * 270u + g * 270u + (1u + ((n0_3 % 6u) / 2u) * 2u) * 5u + 1u + (n0_3 % 2u) * 2u;
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

// ---- conv2dGradInput[1x9x6x5]:gemm[9x16x9]:phase01: workgroup [8,4,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: conv2dGradInput [1, 8, 3, 3]:f32, [8, 9, 3, 3]:f32 -> [1, 9, 6, 5]:f32
// implicit GEMM conv2dGradInput, phase (0, 1) of the stride: dx = wᵀ · dy over its 2x1 taps: M=9 N=9 K=16, tile 16x32x16/4x4, 8x4 threads, operands gathered on the fly
@group(0) @binding(0) var<storage, read> dy: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const M = 9u;
const N = 9u;
const K = 16u;
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
  let wra0 = g * 648u + (row0 + xa0) * 9u;
  let kla0 = lid % 16u;
  let xa1 = lid / 16u + 2u; let oka1 = row0 + xa1 < M;
  let wra1 = g * 648u + (row0 + xa1) * 9u;
  let xa2 = lid / 16u + 4u; let oka2 = row0 + xa2 < M;
  let wra2 = g * 648u + (row0 + xa2) * 9u;
  let xa3 = lid / 16u + 6u; let oka3 = row0 + xa3 < M;
  let wra3 = g * 648u + (row0 + xa3) * 9u;
  let xa4 = lid / 16u + 8u; let oka4 = row0 + xa4 < M;
  let wra4 = g * 648u + (row0 + xa4) * 9u;
  let xa5 = lid / 16u + 10u; let oka5 = row0 + xa5 < M;
  let wra5 = g * 648u + (row0 + xa5) * 9u;
  let xa6 = lid / 16u + 12u; let oka6 = row0 + xa6 < M;
  let wra6 = g * 648u + (row0 + xa6) * 9u;
  let xa7 = lid / 16u + 14u; let oka7 = row0 + xa7 < M;
  let wra7 = g * 648u + (row0 + xa7) * 9u;
  let xb0 = lid % 32u; let okb0 = col0 + xb0 < N;
  let oyb0 = i32(((col0 + xb0) % 9u) / 3u) + 1; let oxb0 = i32((col0 + xb0) % 3u) + 0; let dbb0 = ((col0 + xb0) / 9u) * 72u + g * 72u;
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
    { let ka0 = kt + kla0; let wka0 = (ka0 / 2u) * 81u + (0u + ((ka0 % 2u) / 1u) * 2u) * 3u + 1u + (ka0 % 1u) * 1u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + wka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + wka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + wka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + wka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + wka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + wka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + wka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + wka0]; } }
    { let kb0 = kt + klb0; let qob0 = (kb0 / 2u) * 9u; let ub0 = i32((kb0 % 2u) / 1u); let vb0 = i32(kb0 % 1u) * 0; rb0 = 0.0; if (okb0 && kb0 < K) { let oy = oyb0 - ub0; let ox = oxb0 - vb0; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb0 = dy[dbb0 + qob0 + u32(oy) * 3u + u32(ox)]; } } let kb1 = kt + klb1; let qob1 = (kb1 / 2u) * 9u; let ub1 = i32((kb1 % 2u) / 1u); let vb1 = i32(kb1 % 1u) * 0; rb1 = 0.0; if (okb0 && kb1 < K) { let oy = oyb0 - ub1; let ox = oxb0 - vb1; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb1 = dy[dbb0 + qob1 + u32(oy) * 3u + u32(ox)]; } } let kb2 = kt + klb2; let qob2 = (kb2 / 2u) * 9u; let ub2 = i32((kb2 % 2u) / 1u); let vb2 = i32(kb2 % 1u) * 0; rb2 = 0.0; if (okb0 && kb2 < K) { let oy = oyb0 - ub2; let ox = oxb0 - vb2; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb2 = dy[dbb0 + qob2 + u32(oy) * 3u + u32(ox)]; } } let kb3 = kt + klb3; let qob3 = (kb3 / 2u) * 9u; let ub3 = i32((kb3 % 2u) / 1u); let vb3 = i32(kb3 % 1u) * 0; rb3 = 0.0; if (okb0 && kb3 < K) { let oy = oyb0 - ub3; let ox = oxb0 - vb3; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb3 = dy[dbb0 + qob3 + u32(oy) * 3u + u32(ox)]; } } let kb4 = kt + klb4; let qob4 = (kb4 / 2u) * 9u; let ub4 = i32((kb4 % 2u) / 1u); let vb4 = i32(kb4 % 1u) * 0; rb4 = 0.0; if (okb0 && kb4 < K) { let oy = oyb0 - ub4; let ox = oxb0 - vb4; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb4 = dy[dbb0 + qob4 + u32(oy) * 3u + u32(ox)]; } } let kb5 = kt + klb5; let qob5 = (kb5 / 2u) * 9u; let ub5 = i32((kb5 % 2u) / 1u); let vb5 = i32(kb5 % 1u) * 0; rb5 = 0.0; if (okb0 && kb5 < K) { let oy = oyb0 - ub5; let ox = oxb0 - vb5; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb5 = dy[dbb0 + qob5 + u32(oy) * 3u + u32(ox)]; } } let kb6 = kt + klb6; let qob6 = (kb6 / 2u) * 9u; let ub6 = i32((kb6 % 2u) / 1u); let vb6 = i32(kb6 % 1u) * 0; rb6 = 0.0; if (okb0 && kb6 < K) { let oy = oyb0 - ub6; let ox = oxb0 - vb6; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb6 = dy[dbb0 + qob6 + u32(oy) * 3u + u32(ox)]; } } let kb7 = kt + klb7; let qob7 = (kb7 / 2u) * 9u; let ub7 = i32((kb7 % 2u) / 1u); let vb7 = i32(kb7 % 1u) * 0; rb7 = 0.0; if (okb0 && kb7 < K) { let oy = oyb0 - ub7; let ox = oxb0 - vb7; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb7 = dy[dbb0 + qob7 + u32(oy) * 3u + u32(ox)]; } } let kb8 = kt + klb8; let qob8 = (kb8 / 2u) * 9u; let ub8 = i32((kb8 % 2u) / 1u); let vb8 = i32(kb8 % 1u) * 0; rb8 = 0.0; if (okb0 && kb8 < K) { let oy = oyb0 - ub8; let ox = oxb0 - vb8; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb8 = dy[dbb0 + qob8 + u32(oy) * 3u + u32(ox)]; } } let kb9 = kt + klb9; let qob9 = (kb9 / 2u) * 9u; let ub9 = i32((kb9 % 2u) / 1u); let vb9 = i32(kb9 % 1u) * 0; rb9 = 0.0; if (okb0 && kb9 < K) { let oy = oyb0 - ub9; let ox = oxb0 - vb9; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb9 = dy[dbb0 + qob9 + u32(oy) * 3u + u32(ox)]; } } let kb10 = kt + klb10; let qob10 = (kb10 / 2u) * 9u; let ub10 = i32((kb10 % 2u) / 1u); let vb10 = i32(kb10 % 1u) * 0; rb10 = 0.0; if (okb0 && kb10 < K) { let oy = oyb0 - ub10; let ox = oxb0 - vb10; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb10 = dy[dbb0 + qob10 + u32(oy) * 3u + u32(ox)]; } } let kb11 = kt + klb11; let qob11 = (kb11 / 2u) * 9u; let ub11 = i32((kb11 % 2u) / 1u); let vb11 = i32(kb11 % 1u) * 0; rb11 = 0.0; if (okb0 && kb11 < K) { let oy = oyb0 - ub11; let ox = oxb0 - vb11; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb11 = dy[dbb0 + qob11 + u32(oy) * 3u + u32(ox)]; } } let kb12 = kt + klb12; let qob12 = (kb12 / 2u) * 9u; let ub12 = i32((kb12 % 2u) / 1u); let vb12 = i32(kb12 % 1u) * 0; rb12 = 0.0; if (okb0 && kb12 < K) { let oy = oyb0 - ub12; let ox = oxb0 - vb12; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb12 = dy[dbb0 + qob12 + u32(oy) * 3u + u32(ox)]; } } let kb13 = kt + klb13; let qob13 = (kb13 / 2u) * 9u; let ub13 = i32((kb13 % 2u) / 1u); let vb13 = i32(kb13 % 1u) * 0; rb13 = 0.0; if (okb0 && kb13 < K) { let oy = oyb0 - ub13; let ox = oxb0 - vb13; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb13 = dy[dbb0 + qob13 + u32(oy) * 3u + u32(ox)]; } } let kb14 = kt + klb14; let qob14 = (kb14 / 2u) * 9u; let ub14 = i32((kb14 % 2u) / 1u); let vb14 = i32(kb14 % 1u) * 0; rb14 = 0.0; if (okb0 && kb14 < K) { let oy = oyb0 - ub14; let ox = oxb0 - vb14; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb14 = dy[dbb0 + qob14 + u32(oy) * 3u + u32(ox)]; } } let kb15 = kt + klb15; let qob15 = (kb15 / 2u) * 9u; let ub15 = i32((kb15 % 2u) / 1u); let vb15 = i32(kb15 % 1u) * 0; rb15 = 0.0; if (okb0 && kb15 < K) { let oy = oyb0 - ub15; let ox = oxb0 - vb15; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb15 = dy[dbb0 + qob15 + u32(oy) * 3u + u32(ox)]; } } }
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
      { let ka0 = kt + kla0; let wka0 = (ka0 / 2u) * 81u + (0u + ((ka0 % 2u) / 1u) * 2u) * 3u + 1u + (ka0 % 1u) * 1u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + wka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + wka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + wka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + wka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + wka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + wka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + wka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + wka0]; } }
      { let kb0 = kt + klb0; let qob0 = (kb0 / 2u) * 9u; let ub0 = i32((kb0 % 2u) / 1u); let vb0 = i32(kb0 % 1u) * 0; rb0 = 0.0; if (okb0 && kb0 < K) { let oy = oyb0 - ub0; let ox = oxb0 - vb0; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb0 = dy[dbb0 + qob0 + u32(oy) * 3u + u32(ox)]; } } let kb1 = kt + klb1; let qob1 = (kb1 / 2u) * 9u; let ub1 = i32((kb1 % 2u) / 1u); let vb1 = i32(kb1 % 1u) * 0; rb1 = 0.0; if (okb0 && kb1 < K) { let oy = oyb0 - ub1; let ox = oxb0 - vb1; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb1 = dy[dbb0 + qob1 + u32(oy) * 3u + u32(ox)]; } } let kb2 = kt + klb2; let qob2 = (kb2 / 2u) * 9u; let ub2 = i32((kb2 % 2u) / 1u); let vb2 = i32(kb2 % 1u) * 0; rb2 = 0.0; if (okb0 && kb2 < K) { let oy = oyb0 - ub2; let ox = oxb0 - vb2; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb2 = dy[dbb0 + qob2 + u32(oy) * 3u + u32(ox)]; } } let kb3 = kt + klb3; let qob3 = (kb3 / 2u) * 9u; let ub3 = i32((kb3 % 2u) / 1u); let vb3 = i32(kb3 % 1u) * 0; rb3 = 0.0; if (okb0 && kb3 < K) { let oy = oyb0 - ub3; let ox = oxb0 - vb3; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb3 = dy[dbb0 + qob3 + u32(oy) * 3u + u32(ox)]; } } let kb4 = kt + klb4; let qob4 = (kb4 / 2u) * 9u; let ub4 = i32((kb4 % 2u) / 1u); let vb4 = i32(kb4 % 1u) * 0; rb4 = 0.0; if (okb0 && kb4 < K) { let oy = oyb0 - ub4; let ox = oxb0 - vb4; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb4 = dy[dbb0 + qob4 + u32(oy) * 3u + u32(ox)]; } } let kb5 = kt + klb5; let qob5 = (kb5 / 2u) * 9u; let ub5 = i32((kb5 % 2u) / 1u); let vb5 = i32(kb5 % 1u) * 0; rb5 = 0.0; if (okb0 && kb5 < K) { let oy = oyb0 - ub5; let ox = oxb0 - vb5; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb5 = dy[dbb0 + qob5 + u32(oy) * 3u + u32(ox)]; } } let kb6 = kt + klb6; let qob6 = (kb6 / 2u) * 9u; let ub6 = i32((kb6 % 2u) / 1u); let vb6 = i32(kb6 % 1u) * 0; rb6 = 0.0; if (okb0 && kb6 < K) { let oy = oyb0 - ub6; let ox = oxb0 - vb6; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb6 = dy[dbb0 + qob6 + u32(oy) * 3u + u32(ox)]; } } let kb7 = kt + klb7; let qob7 = (kb7 / 2u) * 9u; let ub7 = i32((kb7 % 2u) / 1u); let vb7 = i32(kb7 % 1u) * 0; rb7 = 0.0; if (okb0 && kb7 < K) { let oy = oyb0 - ub7; let ox = oxb0 - vb7; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb7 = dy[dbb0 + qob7 + u32(oy) * 3u + u32(ox)]; } } let kb8 = kt + klb8; let qob8 = (kb8 / 2u) * 9u; let ub8 = i32((kb8 % 2u) / 1u); let vb8 = i32(kb8 % 1u) * 0; rb8 = 0.0; if (okb0 && kb8 < K) { let oy = oyb0 - ub8; let ox = oxb0 - vb8; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb8 = dy[dbb0 + qob8 + u32(oy) * 3u + u32(ox)]; } } let kb9 = kt + klb9; let qob9 = (kb9 / 2u) * 9u; let ub9 = i32((kb9 % 2u) / 1u); let vb9 = i32(kb9 % 1u) * 0; rb9 = 0.0; if (okb0 && kb9 < K) { let oy = oyb0 - ub9; let ox = oxb0 - vb9; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb9 = dy[dbb0 + qob9 + u32(oy) * 3u + u32(ox)]; } } let kb10 = kt + klb10; let qob10 = (kb10 / 2u) * 9u; let ub10 = i32((kb10 % 2u) / 1u); let vb10 = i32(kb10 % 1u) * 0; rb10 = 0.0; if (okb0 && kb10 < K) { let oy = oyb0 - ub10; let ox = oxb0 - vb10; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb10 = dy[dbb0 + qob10 + u32(oy) * 3u + u32(ox)]; } } let kb11 = kt + klb11; let qob11 = (kb11 / 2u) * 9u; let ub11 = i32((kb11 % 2u) / 1u); let vb11 = i32(kb11 % 1u) * 0; rb11 = 0.0; if (okb0 && kb11 < K) { let oy = oyb0 - ub11; let ox = oxb0 - vb11; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb11 = dy[dbb0 + qob11 + u32(oy) * 3u + u32(ox)]; } } let kb12 = kt + klb12; let qob12 = (kb12 / 2u) * 9u; let ub12 = i32((kb12 % 2u) / 1u); let vb12 = i32(kb12 % 1u) * 0; rb12 = 0.0; if (okb0 && kb12 < K) { let oy = oyb0 - ub12; let ox = oxb0 - vb12; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb12 = dy[dbb0 + qob12 + u32(oy) * 3u + u32(ox)]; } } let kb13 = kt + klb13; let qob13 = (kb13 / 2u) * 9u; let ub13 = i32((kb13 % 2u) / 1u); let vb13 = i32(kb13 % 1u) * 0; rb13 = 0.0; if (okb0 && kb13 < K) { let oy = oyb0 - ub13; let ox = oxb0 - vb13; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb13 = dy[dbb0 + qob13 + u32(oy) * 3u + u32(ox)]; } } let kb14 = kt + klb14; let qob14 = (kb14 / 2u) * 9u; let ub14 = i32((kb14 % 2u) / 1u); let vb14 = i32(kb14 % 1u) * 0; rb14 = 0.0; if (okb0 && kb14 < K) { let oy = oyb0 - ub14; let ox = oxb0 - vb14; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb14 = dy[dbb0 + qob14 + u32(oy) * 3u + u32(ox)]; } } let kb15 = kt + klb15; let qob15 = (kb15 / 2u) * 9u; let ub15 = i32((kb15 % 2u) / 1u); let vb15 = i32(kb15 % 1u) * 0; rb15 = 0.0; if (okb0 && kb15 < K) { let oy = oyb0 - ub15; let ox = oxb0 - vb15; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb15 = dy[dbb0 + qob15 + u32(oy) * 3u + u32(ox)]; } } }
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
  let cb0_0 = (n0_0 / 9u) * 270u + g * 270u + (1u + ((n0_0 % 9u) / 3u) * 2u) * 5u + 0u + (n0_0 % 3u) * 2u;
  let n0_1 = col0 + (0u + tx) * 4u + 1u;
  let cb0_1 = (n0_1 / 9u) * 270u + g * 270u + (1u + ((n0_1 % 9u) / 3u) * 2u) * 5u + 0u + (n0_1 % 3u) * 2u;
  let n0_2 = col0 + (0u + tx) * 4u + 2u;
  let cb0_2 = (n0_2 / 9u) * 270u + g * 270u + (1u + ((n0_2 % 9u) / 3u) * 2u) * 5u + 0u + (n0_2 % 3u) * 2u;
  let n0_3 = col0 + (0u + tx) * 4u + 3u;
  let cb0_3 = (n0_3 / 9u) * 270u + g * 270u + (1u + ((n0_3 % 9u) / 3u) * 2u) * 5u + 0u + (n0_3 % 3u) * 2u;
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

// ---- conv2dGradInput[1x9x6x5]:gemm[9x16x6]:phase10: workgroup [8,4,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: conv2dGradInput [1, 8, 3, 3]:f32, [8, 9, 3, 3]:f32 -> [1, 9, 6, 5]:f32
// implicit GEMM conv2dGradInput, phase (1, 0) of the stride: dx = wᵀ · dy over its 1x2 taps: M=9 N=6 K=16, tile 16x32x16/4x4, 8x4 threads, operands gathered on the fly
@group(0) @binding(0) var<storage, read> dy: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const M = 9u;
const N = 6u;
const K = 16u;
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
  let wra0 = g * 648u + (row0 + xa0) * 9u;
  let kla0 = lid % 16u;
  let xa1 = lid / 16u + 2u; let oka1 = row0 + xa1 < M;
  let wra1 = g * 648u + (row0 + xa1) * 9u;
  let xa2 = lid / 16u + 4u; let oka2 = row0 + xa2 < M;
  let wra2 = g * 648u + (row0 + xa2) * 9u;
  let xa3 = lid / 16u + 6u; let oka3 = row0 + xa3 < M;
  let wra3 = g * 648u + (row0 + xa3) * 9u;
  let xa4 = lid / 16u + 8u; let oka4 = row0 + xa4 < M;
  let wra4 = g * 648u + (row0 + xa4) * 9u;
  let xa5 = lid / 16u + 10u; let oka5 = row0 + xa5 < M;
  let wra5 = g * 648u + (row0 + xa5) * 9u;
  let xa6 = lid / 16u + 12u; let oka6 = row0 + xa6 < M;
  let wra6 = g * 648u + (row0 + xa6) * 9u;
  let xa7 = lid / 16u + 14u; let oka7 = row0 + xa7 < M;
  let wra7 = g * 648u + (row0 + xa7) * 9u;
  let xb0 = lid % 32u; let okb0 = col0 + xb0 < N;
  let oyb0 = i32(((col0 + xb0) % 6u) / 2u) + 0; let oxb0 = i32((col0 + xb0) % 2u) + 1; let dbb0 = ((col0 + xb0) / 6u) * 72u + g * 72u;
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
    { let ka0 = kt + kla0; let wka0 = (ka0 / 2u) * 81u + (1u + ((ka0 % 2u) / 2u) * 1u) * 3u + 0u + (ka0 % 2u) * 2u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + wka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + wka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + wka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + wka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + wka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + wka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + wka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + wka0]; } }
    { let kb0 = kt + klb0; let qob0 = (kb0 / 2u) * 9u; let ub0 = i32((kb0 % 2u) / 2u) * 0; let vb0 = i32(kb0 % 2u); rb0 = 0.0; if (okb0 && kb0 < K) { let oy = oyb0 - ub0; let ox = oxb0 - vb0; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb0 = dy[dbb0 + qob0 + u32(oy) * 3u + u32(ox)]; } } let kb1 = kt + klb1; let qob1 = (kb1 / 2u) * 9u; let ub1 = i32((kb1 % 2u) / 2u) * 0; let vb1 = i32(kb1 % 2u); rb1 = 0.0; if (okb0 && kb1 < K) { let oy = oyb0 - ub1; let ox = oxb0 - vb1; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb1 = dy[dbb0 + qob1 + u32(oy) * 3u + u32(ox)]; } } let kb2 = kt + klb2; let qob2 = (kb2 / 2u) * 9u; let ub2 = i32((kb2 % 2u) / 2u) * 0; let vb2 = i32(kb2 % 2u); rb2 = 0.0; if (okb0 && kb2 < K) { let oy = oyb0 - ub2; let ox = oxb0 - vb2; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb2 = dy[dbb0 + qob2 + u32(oy) * 3u + u32(ox)]; } } let kb3 = kt + klb3; let qob3 = (kb3 / 2u) * 9u; let ub3 = i32((kb3 % 2u) / 2u) * 0; let vb3 = i32(kb3 % 2u); rb3 = 0.0; if (okb0 && kb3 < K) { let oy = oyb0 - ub3; let ox = oxb0 - vb3; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb3 = dy[dbb0 + qob3 + u32(oy) * 3u + u32(ox)]; } } let kb4 = kt + klb4; let qob4 = (kb4 / 2u) * 9u; let ub4 = i32((kb4 % 2u) / 2u) * 0; let vb4 = i32(kb4 % 2u); rb4 = 0.0; if (okb0 && kb4 < K) { let oy = oyb0 - ub4; let ox = oxb0 - vb4; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb4 = dy[dbb0 + qob4 + u32(oy) * 3u + u32(ox)]; } } let kb5 = kt + klb5; let qob5 = (kb5 / 2u) * 9u; let ub5 = i32((kb5 % 2u) / 2u) * 0; let vb5 = i32(kb5 % 2u); rb5 = 0.0; if (okb0 && kb5 < K) { let oy = oyb0 - ub5; let ox = oxb0 - vb5; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb5 = dy[dbb0 + qob5 + u32(oy) * 3u + u32(ox)]; } } let kb6 = kt + klb6; let qob6 = (kb6 / 2u) * 9u; let ub6 = i32((kb6 % 2u) / 2u) * 0; let vb6 = i32(kb6 % 2u); rb6 = 0.0; if (okb0 && kb6 < K) { let oy = oyb0 - ub6; let ox = oxb0 - vb6; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb6 = dy[dbb0 + qob6 + u32(oy) * 3u + u32(ox)]; } } let kb7 = kt + klb7; let qob7 = (kb7 / 2u) * 9u; let ub7 = i32((kb7 % 2u) / 2u) * 0; let vb7 = i32(kb7 % 2u); rb7 = 0.0; if (okb0 && kb7 < K) { let oy = oyb0 - ub7; let ox = oxb0 - vb7; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb7 = dy[dbb0 + qob7 + u32(oy) * 3u + u32(ox)]; } } let kb8 = kt + klb8; let qob8 = (kb8 / 2u) * 9u; let ub8 = i32((kb8 % 2u) / 2u) * 0; let vb8 = i32(kb8 % 2u); rb8 = 0.0; if (okb0 && kb8 < K) { let oy = oyb0 - ub8; let ox = oxb0 - vb8; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb8 = dy[dbb0 + qob8 + u32(oy) * 3u + u32(ox)]; } } let kb9 = kt + klb9; let qob9 = (kb9 / 2u) * 9u; let ub9 = i32((kb9 % 2u) / 2u) * 0; let vb9 = i32(kb9 % 2u); rb9 = 0.0; if (okb0 && kb9 < K) { let oy = oyb0 - ub9; let ox = oxb0 - vb9; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb9 = dy[dbb0 + qob9 + u32(oy) * 3u + u32(ox)]; } } let kb10 = kt + klb10; let qob10 = (kb10 / 2u) * 9u; let ub10 = i32((kb10 % 2u) / 2u) * 0; let vb10 = i32(kb10 % 2u); rb10 = 0.0; if (okb0 && kb10 < K) { let oy = oyb0 - ub10; let ox = oxb0 - vb10; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb10 = dy[dbb0 + qob10 + u32(oy) * 3u + u32(ox)]; } } let kb11 = kt + klb11; let qob11 = (kb11 / 2u) * 9u; let ub11 = i32((kb11 % 2u) / 2u) * 0; let vb11 = i32(kb11 % 2u); rb11 = 0.0; if (okb0 && kb11 < K) { let oy = oyb0 - ub11; let ox = oxb0 - vb11; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb11 = dy[dbb0 + qob11 + u32(oy) * 3u + u32(ox)]; } } let kb12 = kt + klb12; let qob12 = (kb12 / 2u) * 9u; let ub12 = i32((kb12 % 2u) / 2u) * 0; let vb12 = i32(kb12 % 2u); rb12 = 0.0; if (okb0 && kb12 < K) { let oy = oyb0 - ub12; let ox = oxb0 - vb12; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb12 = dy[dbb0 + qob12 + u32(oy) * 3u + u32(ox)]; } } let kb13 = kt + klb13; let qob13 = (kb13 / 2u) * 9u; let ub13 = i32((kb13 % 2u) / 2u) * 0; let vb13 = i32(kb13 % 2u); rb13 = 0.0; if (okb0 && kb13 < K) { let oy = oyb0 - ub13; let ox = oxb0 - vb13; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb13 = dy[dbb0 + qob13 + u32(oy) * 3u + u32(ox)]; } } let kb14 = kt + klb14; let qob14 = (kb14 / 2u) * 9u; let ub14 = i32((kb14 % 2u) / 2u) * 0; let vb14 = i32(kb14 % 2u); rb14 = 0.0; if (okb0 && kb14 < K) { let oy = oyb0 - ub14; let ox = oxb0 - vb14; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb14 = dy[dbb0 + qob14 + u32(oy) * 3u + u32(ox)]; } } let kb15 = kt + klb15; let qob15 = (kb15 / 2u) * 9u; let ub15 = i32((kb15 % 2u) / 2u) * 0; let vb15 = i32(kb15 % 2u); rb15 = 0.0; if (okb0 && kb15 < K) { let oy = oyb0 - ub15; let ox = oxb0 - vb15; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb15 = dy[dbb0 + qob15 + u32(oy) * 3u + u32(ox)]; } } }
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
      { let ka0 = kt + kla0; let wka0 = (ka0 / 2u) * 81u + (1u + ((ka0 % 2u) / 2u) * 1u) * 3u + 0u + (ka0 % 2u) * 2u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + wka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + wka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + wka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + wka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + wka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + wka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + wka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + wka0]; } }
      { let kb0 = kt + klb0; let qob0 = (kb0 / 2u) * 9u; let ub0 = i32((kb0 % 2u) / 2u) * 0; let vb0 = i32(kb0 % 2u); rb0 = 0.0; if (okb0 && kb0 < K) { let oy = oyb0 - ub0; let ox = oxb0 - vb0; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb0 = dy[dbb0 + qob0 + u32(oy) * 3u + u32(ox)]; } } let kb1 = kt + klb1; let qob1 = (kb1 / 2u) * 9u; let ub1 = i32((kb1 % 2u) / 2u) * 0; let vb1 = i32(kb1 % 2u); rb1 = 0.0; if (okb0 && kb1 < K) { let oy = oyb0 - ub1; let ox = oxb0 - vb1; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb1 = dy[dbb0 + qob1 + u32(oy) * 3u + u32(ox)]; } } let kb2 = kt + klb2; let qob2 = (kb2 / 2u) * 9u; let ub2 = i32((kb2 % 2u) / 2u) * 0; let vb2 = i32(kb2 % 2u); rb2 = 0.0; if (okb0 && kb2 < K) { let oy = oyb0 - ub2; let ox = oxb0 - vb2; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb2 = dy[dbb0 + qob2 + u32(oy) * 3u + u32(ox)]; } } let kb3 = kt + klb3; let qob3 = (kb3 / 2u) * 9u; let ub3 = i32((kb3 % 2u) / 2u) * 0; let vb3 = i32(kb3 % 2u); rb3 = 0.0; if (okb0 && kb3 < K) { let oy = oyb0 - ub3; let ox = oxb0 - vb3; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb3 = dy[dbb0 + qob3 + u32(oy) * 3u + u32(ox)]; } } let kb4 = kt + klb4; let qob4 = (kb4 / 2u) * 9u; let ub4 = i32((kb4 % 2u) / 2u) * 0; let vb4 = i32(kb4 % 2u); rb4 = 0.0; if (okb0 && kb4 < K) { let oy = oyb0 - ub4; let ox = oxb0 - vb4; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb4 = dy[dbb0 + qob4 + u32(oy) * 3u + u32(ox)]; } } let kb5 = kt + klb5; let qob5 = (kb5 / 2u) * 9u; let ub5 = i32((kb5 % 2u) / 2u) * 0; let vb5 = i32(kb5 % 2u); rb5 = 0.0; if (okb0 && kb5 < K) { let oy = oyb0 - ub5; let ox = oxb0 - vb5; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb5 = dy[dbb0 + qob5 + u32(oy) * 3u + u32(ox)]; } } let kb6 = kt + klb6; let qob6 = (kb6 / 2u) * 9u; let ub6 = i32((kb6 % 2u) / 2u) * 0; let vb6 = i32(kb6 % 2u); rb6 = 0.0; if (okb0 && kb6 < K) { let oy = oyb0 - ub6; let ox = oxb0 - vb6; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb6 = dy[dbb0 + qob6 + u32(oy) * 3u + u32(ox)]; } } let kb7 = kt + klb7; let qob7 = (kb7 / 2u) * 9u; let ub7 = i32((kb7 % 2u) / 2u) * 0; let vb7 = i32(kb7 % 2u); rb7 = 0.0; if (okb0 && kb7 < K) { let oy = oyb0 - ub7; let ox = oxb0 - vb7; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb7 = dy[dbb0 + qob7 + u32(oy) * 3u + u32(ox)]; } } let kb8 = kt + klb8; let qob8 = (kb8 / 2u) * 9u; let ub8 = i32((kb8 % 2u) / 2u) * 0; let vb8 = i32(kb8 % 2u); rb8 = 0.0; if (okb0 && kb8 < K) { let oy = oyb0 - ub8; let ox = oxb0 - vb8; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb8 = dy[dbb0 + qob8 + u32(oy) * 3u + u32(ox)]; } } let kb9 = kt + klb9; let qob9 = (kb9 / 2u) * 9u; let ub9 = i32((kb9 % 2u) / 2u) * 0; let vb9 = i32(kb9 % 2u); rb9 = 0.0; if (okb0 && kb9 < K) { let oy = oyb0 - ub9; let ox = oxb0 - vb9; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb9 = dy[dbb0 + qob9 + u32(oy) * 3u + u32(ox)]; } } let kb10 = kt + klb10; let qob10 = (kb10 / 2u) * 9u; let ub10 = i32((kb10 % 2u) / 2u) * 0; let vb10 = i32(kb10 % 2u); rb10 = 0.0; if (okb0 && kb10 < K) { let oy = oyb0 - ub10; let ox = oxb0 - vb10; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb10 = dy[dbb0 + qob10 + u32(oy) * 3u + u32(ox)]; } } let kb11 = kt + klb11; let qob11 = (kb11 / 2u) * 9u; let ub11 = i32((kb11 % 2u) / 2u) * 0; let vb11 = i32(kb11 % 2u); rb11 = 0.0; if (okb0 && kb11 < K) { let oy = oyb0 - ub11; let ox = oxb0 - vb11; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb11 = dy[dbb0 + qob11 + u32(oy) * 3u + u32(ox)]; } } let kb12 = kt + klb12; let qob12 = (kb12 / 2u) * 9u; let ub12 = i32((kb12 % 2u) / 2u) * 0; let vb12 = i32(kb12 % 2u); rb12 = 0.0; if (okb0 && kb12 < K) { let oy = oyb0 - ub12; let ox = oxb0 - vb12; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb12 = dy[dbb0 + qob12 + u32(oy) * 3u + u32(ox)]; } } let kb13 = kt + klb13; let qob13 = (kb13 / 2u) * 9u; let ub13 = i32((kb13 % 2u) / 2u) * 0; let vb13 = i32(kb13 % 2u); rb13 = 0.0; if (okb0 && kb13 < K) { let oy = oyb0 - ub13; let ox = oxb0 - vb13; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb13 = dy[dbb0 + qob13 + u32(oy) * 3u + u32(ox)]; } } let kb14 = kt + klb14; let qob14 = (kb14 / 2u) * 9u; let ub14 = i32((kb14 % 2u) / 2u) * 0; let vb14 = i32(kb14 % 2u); rb14 = 0.0; if (okb0 && kb14 < K) { let oy = oyb0 - ub14; let ox = oxb0 - vb14; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb14 = dy[dbb0 + qob14 + u32(oy) * 3u + u32(ox)]; } } let kb15 = kt + klb15; let qob15 = (kb15 / 2u) * 9u; let ub15 = i32((kb15 % 2u) / 2u) * 0; let vb15 = i32(kb15 % 2u); rb15 = 0.0; if (okb0 && kb15 < K) { let oy = oyb0 - ub15; let ox = oxb0 - vb15; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb15 = dy[dbb0 + qob15 + u32(oy) * 3u + u32(ox)]; } } }
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
  let cb0_0 = (n0_0 / 6u) * 270u + g * 270u + (0u + ((n0_0 % 6u) / 2u) * 2u) * 5u + 1u + (n0_0 % 2u) * 2u;
  let n0_1 = col0 + (0u + tx) * 4u + 1u;
  let cb0_1 = (n0_1 / 6u) * 270u + g * 270u + (0u + ((n0_1 % 6u) / 2u) * 2u) * 5u + 1u + (n0_1 % 2u) * 2u;
  let n0_2 = col0 + (0u + tx) * 4u + 2u;
  let cb0_2 = (n0_2 / 6u) * 270u + g * 270u + (0u + ((n0_2 % 6u) / 2u) * 2u) * 5u + 1u + (n0_2 % 2u) * 2u;
  let n0_3 = col0 + (0u + tx) * 4u + 3u;
  let cb0_3 = (n0_3 / 6u) * 270u + g * 270u + (0u + ((n0_3 % 6u) / 2u) * 2u) * 5u + 1u + (n0_3 % 2u) * 2u;
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

// ---- conv2dGradInput[1x9x6x5]:gemm[9x8x9]:phase11: workgroup [8,4,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: conv2dGradInput [1, 8, 3, 3]:f32, [8, 9, 3, 3]:f32 -> [1, 9, 6, 5]:f32
// implicit GEMM conv2dGradInput, phase (1, 1) of the stride: dx = wᵀ · dy over its 1x1 taps: M=9 N=9 K=8, tile 16x32x16/4x4, 8x4 threads, operands gathered on the fly
@group(0) @binding(0) var<storage, read> dy: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const M = 9u;
const N = 9u;
const K = 8u;
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
  let wra0 = g * 648u + (row0 + xa0) * 9u;
  let kla0 = lid % 16u;
  let xa1 = lid / 16u + 2u; let oka1 = row0 + xa1 < M;
  let wra1 = g * 648u + (row0 + xa1) * 9u;
  let xa2 = lid / 16u + 4u; let oka2 = row0 + xa2 < M;
  let wra2 = g * 648u + (row0 + xa2) * 9u;
  let xa3 = lid / 16u + 6u; let oka3 = row0 + xa3 < M;
  let wra3 = g * 648u + (row0 + xa3) * 9u;
  let xa4 = lid / 16u + 8u; let oka4 = row0 + xa4 < M;
  let wra4 = g * 648u + (row0 + xa4) * 9u;
  let xa5 = lid / 16u + 10u; let oka5 = row0 + xa5 < M;
  let wra5 = g * 648u + (row0 + xa5) * 9u;
  let xa6 = lid / 16u + 12u; let oka6 = row0 + xa6 < M;
  let wra6 = g * 648u + (row0 + xa6) * 9u;
  let xa7 = lid / 16u + 14u; let oka7 = row0 + xa7 < M;
  let wra7 = g * 648u + (row0 + xa7) * 9u;
  let xb0 = lid % 32u; let okb0 = col0 + xb0 < N;
  let oyb0 = i32(((col0 + xb0) % 9u) / 3u) + 0; let oxb0 = i32((col0 + xb0) % 3u) + 0; let dbb0 = ((col0 + xb0) / 9u) * 72u + g * 72u;
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
    { let ka0 = kt + kla0; let wka0 = (ka0 / 1u) * 81u + (1u + ((ka0 % 1u) / 1u) * 1u) * 3u + 1u + (ka0 % 1u) * 1u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + wka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + wka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + wka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + wka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + wka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + wka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + wka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + wka0]; } }
    { let kb0 = kt + klb0; let qob0 = (kb0 / 1u) * 9u; let ub0 = i32((kb0 % 1u) / 1u) * 0; let vb0 = i32(kb0 % 1u) * 0; rb0 = 0.0; if (okb0 && kb0 < K) { let oy = oyb0 - ub0; let ox = oxb0 - vb0; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb0 = dy[dbb0 + qob0 + u32(oy) * 3u + u32(ox)]; } } let kb1 = kt + klb1; let qob1 = (kb1 / 1u) * 9u; let ub1 = i32((kb1 % 1u) / 1u) * 0; let vb1 = i32(kb1 % 1u) * 0; rb1 = 0.0; if (okb0 && kb1 < K) { let oy = oyb0 - ub1; let ox = oxb0 - vb1; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb1 = dy[dbb0 + qob1 + u32(oy) * 3u + u32(ox)]; } } let kb2 = kt + klb2; let qob2 = (kb2 / 1u) * 9u; let ub2 = i32((kb2 % 1u) / 1u) * 0; let vb2 = i32(kb2 % 1u) * 0; rb2 = 0.0; if (okb0 && kb2 < K) { let oy = oyb0 - ub2; let ox = oxb0 - vb2; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb2 = dy[dbb0 + qob2 + u32(oy) * 3u + u32(ox)]; } } let kb3 = kt + klb3; let qob3 = (kb3 / 1u) * 9u; let ub3 = i32((kb3 % 1u) / 1u) * 0; let vb3 = i32(kb3 % 1u) * 0; rb3 = 0.0; if (okb0 && kb3 < K) { let oy = oyb0 - ub3; let ox = oxb0 - vb3; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb3 = dy[dbb0 + qob3 + u32(oy) * 3u + u32(ox)]; } } let kb4 = kt + klb4; let qob4 = (kb4 / 1u) * 9u; let ub4 = i32((kb4 % 1u) / 1u) * 0; let vb4 = i32(kb4 % 1u) * 0; rb4 = 0.0; if (okb0 && kb4 < K) { let oy = oyb0 - ub4; let ox = oxb0 - vb4; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb4 = dy[dbb0 + qob4 + u32(oy) * 3u + u32(ox)]; } } let kb5 = kt + klb5; let qob5 = (kb5 / 1u) * 9u; let ub5 = i32((kb5 % 1u) / 1u) * 0; let vb5 = i32(kb5 % 1u) * 0; rb5 = 0.0; if (okb0 && kb5 < K) { let oy = oyb0 - ub5; let ox = oxb0 - vb5; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb5 = dy[dbb0 + qob5 + u32(oy) * 3u + u32(ox)]; } } let kb6 = kt + klb6; let qob6 = (kb6 / 1u) * 9u; let ub6 = i32((kb6 % 1u) / 1u) * 0; let vb6 = i32(kb6 % 1u) * 0; rb6 = 0.0; if (okb0 && kb6 < K) { let oy = oyb0 - ub6; let ox = oxb0 - vb6; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb6 = dy[dbb0 + qob6 + u32(oy) * 3u + u32(ox)]; } } let kb7 = kt + klb7; let qob7 = (kb7 / 1u) * 9u; let ub7 = i32((kb7 % 1u) / 1u) * 0; let vb7 = i32(kb7 % 1u) * 0; rb7 = 0.0; if (okb0 && kb7 < K) { let oy = oyb0 - ub7; let ox = oxb0 - vb7; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb7 = dy[dbb0 + qob7 + u32(oy) * 3u + u32(ox)]; } } let kb8 = kt + klb8; let qob8 = (kb8 / 1u) * 9u; let ub8 = i32((kb8 % 1u) / 1u) * 0; let vb8 = i32(kb8 % 1u) * 0; rb8 = 0.0; if (okb0 && kb8 < K) { let oy = oyb0 - ub8; let ox = oxb0 - vb8; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb8 = dy[dbb0 + qob8 + u32(oy) * 3u + u32(ox)]; } } let kb9 = kt + klb9; let qob9 = (kb9 / 1u) * 9u; let ub9 = i32((kb9 % 1u) / 1u) * 0; let vb9 = i32(kb9 % 1u) * 0; rb9 = 0.0; if (okb0 && kb9 < K) { let oy = oyb0 - ub9; let ox = oxb0 - vb9; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb9 = dy[dbb0 + qob9 + u32(oy) * 3u + u32(ox)]; } } let kb10 = kt + klb10; let qob10 = (kb10 / 1u) * 9u; let ub10 = i32((kb10 % 1u) / 1u) * 0; let vb10 = i32(kb10 % 1u) * 0; rb10 = 0.0; if (okb0 && kb10 < K) { let oy = oyb0 - ub10; let ox = oxb0 - vb10; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb10 = dy[dbb0 + qob10 + u32(oy) * 3u + u32(ox)]; } } let kb11 = kt + klb11; let qob11 = (kb11 / 1u) * 9u; let ub11 = i32((kb11 % 1u) / 1u) * 0; let vb11 = i32(kb11 % 1u) * 0; rb11 = 0.0; if (okb0 && kb11 < K) { let oy = oyb0 - ub11; let ox = oxb0 - vb11; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb11 = dy[dbb0 + qob11 + u32(oy) * 3u + u32(ox)]; } } let kb12 = kt + klb12; let qob12 = (kb12 / 1u) * 9u; let ub12 = i32((kb12 % 1u) / 1u) * 0; let vb12 = i32(kb12 % 1u) * 0; rb12 = 0.0; if (okb0 && kb12 < K) { let oy = oyb0 - ub12; let ox = oxb0 - vb12; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb12 = dy[dbb0 + qob12 + u32(oy) * 3u + u32(ox)]; } } let kb13 = kt + klb13; let qob13 = (kb13 / 1u) * 9u; let ub13 = i32((kb13 % 1u) / 1u) * 0; let vb13 = i32(kb13 % 1u) * 0; rb13 = 0.0; if (okb0 && kb13 < K) { let oy = oyb0 - ub13; let ox = oxb0 - vb13; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb13 = dy[dbb0 + qob13 + u32(oy) * 3u + u32(ox)]; } } let kb14 = kt + klb14; let qob14 = (kb14 / 1u) * 9u; let ub14 = i32((kb14 % 1u) / 1u) * 0; let vb14 = i32(kb14 % 1u) * 0; rb14 = 0.0; if (okb0 && kb14 < K) { let oy = oyb0 - ub14; let ox = oxb0 - vb14; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb14 = dy[dbb0 + qob14 + u32(oy) * 3u + u32(ox)]; } } let kb15 = kt + klb15; let qob15 = (kb15 / 1u) * 9u; let ub15 = i32((kb15 % 1u) / 1u) * 0; let vb15 = i32(kb15 % 1u) * 0; rb15 = 0.0; if (okb0 && kb15 < K) { let oy = oyb0 - ub15; let ox = oxb0 - vb15; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb15 = dy[dbb0 + qob15 + u32(oy) * 3u + u32(ox)]; } } }
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
      { let ka0 = kt + kla0; let wka0 = (ka0 / 1u) * 81u + (1u + ((ka0 % 1u) / 1u) * 1u) * 3u + 1u + (ka0 % 1u) * 1u; ra0 = 0.0; if (oka0 && ka0 < K) { ra0 = w[wra0 + wka0]; } ra1 = 0.0; if (oka1 && ka0 < K) { ra1 = w[wra1 + wka0]; } ra2 = 0.0; if (oka2 && ka0 < K) { ra2 = w[wra2 + wka0]; } ra3 = 0.0; if (oka3 && ka0 < K) { ra3 = w[wra3 + wka0]; } ra4 = 0.0; if (oka4 && ka0 < K) { ra4 = w[wra4 + wka0]; } ra5 = 0.0; if (oka5 && ka0 < K) { ra5 = w[wra5 + wka0]; } ra6 = 0.0; if (oka6 && ka0 < K) { ra6 = w[wra6 + wka0]; } ra7 = 0.0; if (oka7 && ka0 < K) { ra7 = w[wra7 + wka0]; } }
      { let kb0 = kt + klb0; let qob0 = (kb0 / 1u) * 9u; let ub0 = i32((kb0 % 1u) / 1u) * 0; let vb0 = i32(kb0 % 1u) * 0; rb0 = 0.0; if (okb0 && kb0 < K) { let oy = oyb0 - ub0; let ox = oxb0 - vb0; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb0 = dy[dbb0 + qob0 + u32(oy) * 3u + u32(ox)]; } } let kb1 = kt + klb1; let qob1 = (kb1 / 1u) * 9u; let ub1 = i32((kb1 % 1u) / 1u) * 0; let vb1 = i32(kb1 % 1u) * 0; rb1 = 0.0; if (okb0 && kb1 < K) { let oy = oyb0 - ub1; let ox = oxb0 - vb1; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb1 = dy[dbb0 + qob1 + u32(oy) * 3u + u32(ox)]; } } let kb2 = kt + klb2; let qob2 = (kb2 / 1u) * 9u; let ub2 = i32((kb2 % 1u) / 1u) * 0; let vb2 = i32(kb2 % 1u) * 0; rb2 = 0.0; if (okb0 && kb2 < K) { let oy = oyb0 - ub2; let ox = oxb0 - vb2; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb2 = dy[dbb0 + qob2 + u32(oy) * 3u + u32(ox)]; } } let kb3 = kt + klb3; let qob3 = (kb3 / 1u) * 9u; let ub3 = i32((kb3 % 1u) / 1u) * 0; let vb3 = i32(kb3 % 1u) * 0; rb3 = 0.0; if (okb0 && kb3 < K) { let oy = oyb0 - ub3; let ox = oxb0 - vb3; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb3 = dy[dbb0 + qob3 + u32(oy) * 3u + u32(ox)]; } } let kb4 = kt + klb4; let qob4 = (kb4 / 1u) * 9u; let ub4 = i32((kb4 % 1u) / 1u) * 0; let vb4 = i32(kb4 % 1u) * 0; rb4 = 0.0; if (okb0 && kb4 < K) { let oy = oyb0 - ub4; let ox = oxb0 - vb4; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb4 = dy[dbb0 + qob4 + u32(oy) * 3u + u32(ox)]; } } let kb5 = kt + klb5; let qob5 = (kb5 / 1u) * 9u; let ub5 = i32((kb5 % 1u) / 1u) * 0; let vb5 = i32(kb5 % 1u) * 0; rb5 = 0.0; if (okb0 && kb5 < K) { let oy = oyb0 - ub5; let ox = oxb0 - vb5; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb5 = dy[dbb0 + qob5 + u32(oy) * 3u + u32(ox)]; } } let kb6 = kt + klb6; let qob6 = (kb6 / 1u) * 9u; let ub6 = i32((kb6 % 1u) / 1u) * 0; let vb6 = i32(kb6 % 1u) * 0; rb6 = 0.0; if (okb0 && kb6 < K) { let oy = oyb0 - ub6; let ox = oxb0 - vb6; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb6 = dy[dbb0 + qob6 + u32(oy) * 3u + u32(ox)]; } } let kb7 = kt + klb7; let qob7 = (kb7 / 1u) * 9u; let ub7 = i32((kb7 % 1u) / 1u) * 0; let vb7 = i32(kb7 % 1u) * 0; rb7 = 0.0; if (okb0 && kb7 < K) { let oy = oyb0 - ub7; let ox = oxb0 - vb7; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb7 = dy[dbb0 + qob7 + u32(oy) * 3u + u32(ox)]; } } let kb8 = kt + klb8; let qob8 = (kb8 / 1u) * 9u; let ub8 = i32((kb8 % 1u) / 1u) * 0; let vb8 = i32(kb8 % 1u) * 0; rb8 = 0.0; if (okb0 && kb8 < K) { let oy = oyb0 - ub8; let ox = oxb0 - vb8; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb8 = dy[dbb0 + qob8 + u32(oy) * 3u + u32(ox)]; } } let kb9 = kt + klb9; let qob9 = (kb9 / 1u) * 9u; let ub9 = i32((kb9 % 1u) / 1u) * 0; let vb9 = i32(kb9 % 1u) * 0; rb9 = 0.0; if (okb0 && kb9 < K) { let oy = oyb0 - ub9; let ox = oxb0 - vb9; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb9 = dy[dbb0 + qob9 + u32(oy) * 3u + u32(ox)]; } } let kb10 = kt + klb10; let qob10 = (kb10 / 1u) * 9u; let ub10 = i32((kb10 % 1u) / 1u) * 0; let vb10 = i32(kb10 % 1u) * 0; rb10 = 0.0; if (okb0 && kb10 < K) { let oy = oyb0 - ub10; let ox = oxb0 - vb10; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb10 = dy[dbb0 + qob10 + u32(oy) * 3u + u32(ox)]; } } let kb11 = kt + klb11; let qob11 = (kb11 / 1u) * 9u; let ub11 = i32((kb11 % 1u) / 1u) * 0; let vb11 = i32(kb11 % 1u) * 0; rb11 = 0.0; if (okb0 && kb11 < K) { let oy = oyb0 - ub11; let ox = oxb0 - vb11; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb11 = dy[dbb0 + qob11 + u32(oy) * 3u + u32(ox)]; } } let kb12 = kt + klb12; let qob12 = (kb12 / 1u) * 9u; let ub12 = i32((kb12 % 1u) / 1u) * 0; let vb12 = i32(kb12 % 1u) * 0; rb12 = 0.0; if (okb0 && kb12 < K) { let oy = oyb0 - ub12; let ox = oxb0 - vb12; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb12 = dy[dbb0 + qob12 + u32(oy) * 3u + u32(ox)]; } } let kb13 = kt + klb13; let qob13 = (kb13 / 1u) * 9u; let ub13 = i32((kb13 % 1u) / 1u) * 0; let vb13 = i32(kb13 % 1u) * 0; rb13 = 0.0; if (okb0 && kb13 < K) { let oy = oyb0 - ub13; let ox = oxb0 - vb13; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb13 = dy[dbb0 + qob13 + u32(oy) * 3u + u32(ox)]; } } let kb14 = kt + klb14; let qob14 = (kb14 / 1u) * 9u; let ub14 = i32((kb14 % 1u) / 1u) * 0; let vb14 = i32(kb14 % 1u) * 0; rb14 = 0.0; if (okb0 && kb14 < K) { let oy = oyb0 - ub14; let ox = oxb0 - vb14; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb14 = dy[dbb0 + qob14 + u32(oy) * 3u + u32(ox)]; } } let kb15 = kt + klb15; let qob15 = (kb15 / 1u) * 9u; let ub15 = i32((kb15 % 1u) / 1u) * 0; let vb15 = i32(kb15 % 1u) * 0; rb15 = 0.0; if (okb0 && kb15 < K) { let oy = oyb0 - ub15; let ox = oxb0 - vb15; if (oy >= 0 && oy < 3 && ox >= 0 && ox < 3) { rb15 = dy[dbb0 + qob15 + u32(oy) * 3u + u32(ox)]; } } }
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
  let cb0_0 = (n0_0 / 9u) * 270u + g * 270u + (0u + ((n0_0 % 9u) / 3u) * 2u) * 5u + 0u + (n0_0 % 3u) * 2u;
  let n0_1 = col0 + (0u + tx) * 4u + 1u;
  let cb0_1 = (n0_1 / 9u) * 270u + g * 270u + (0u + ((n0_1 % 9u) / 3u) * 2u) * 5u + 0u + (n0_1 % 3u) * 2u;
  let n0_2 = col0 + (0u + tx) * 4u + 2u;
  let cb0_2 = (n0_2 / 9u) * 270u + g * 270u + (0u + ((n0_2 % 9u) / 3u) * 2u) * 5u + 0u + (n0_2 % 3u) * 2u;
  let n0_3 = col0 + (0u + tx) * 4u + 3u;
  let cb0_3 = (n0_3 / 9u) * 270u + g * 270u + (0u + ((n0_3 % 9u) / 3u) * 2u) * 5u + 0u + (n0_3 % 3u) * 2u;
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

