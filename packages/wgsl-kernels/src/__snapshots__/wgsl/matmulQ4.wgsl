// scratch: []
// ---- matmulQ4[2x5]: workgroup [64,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:i32 input2:read:i32 output:read_write:f32
// neura kernel: matmulQ4 [2, 40]:f32, [5, 8]:i32, [5, 1]:i32 -> [2, 5]:f32
// Q4_0 weight, 2 row(s): 8 threads per output column read its blocks (16 bytes each, consecutive), dequantize (q − 8)·d in registers, then sum
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> q: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read> d: array<i32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

const R = 2u;
const K = 40u;
const N = 5u;
const BLOCKS = 2u;
const WORDS = 8u;
const DWORDS = 1u;
var<workgroup> part: array<f32, 128>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let c = lid / 8u;
  let t = lid % 8u;
  let n = wid.x * 8u + c;
  var acc: array<f32, 2>;
  if (n < N) {
    for (var b = t; b < BLOCKS; b += 8u) {
      let s = unpack2x16float(bitcast<u32>(d[n * DWORDS + b / 2u]))[b % 2u];
      let v = bitcast<vec4<u32>>(q[n * BLOCKS + b]);
      let lo0 = s * (vec4<f32>((vec4<u32>(v[0]) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(15u)) - vec4<f32>(8.0));
      let hi0 = s * (vec4<f32>((vec4<u32>(v[0]) >> vec4<u32>(4u, 12u, 20u, 28u)) & vec4<u32>(15u)) - vec4<f32>(8.0));
      acc[0] += dot(lo0, vec4<f32>(select(0.0, x[0u * K + min(b * 32u + 0u + 0u, K - 1u)], b * 32u + 0u + 0u < K), select(0.0, x[0u * K + min(b * 32u + 0u + 1u, K - 1u)], b * 32u + 0u + 1u < K), select(0.0, x[0u * K + min(b * 32u + 0u + 2u, K - 1u)], b * 32u + 0u + 2u < K), select(0.0, x[0u * K + min(b * 32u + 0u + 3u, K - 1u)], b * 32u + 0u + 3u < K))) + dot(hi0, vec4<f32>(select(0.0, x[0u * K + min(b * 32u + 16u + 0u, K - 1u)], b * 32u + 16u + 0u < K), select(0.0, x[0u * K + min(b * 32u + 16u + 1u, K - 1u)], b * 32u + 16u + 1u < K), select(0.0, x[0u * K + min(b * 32u + 16u + 2u, K - 1u)], b * 32u + 16u + 2u < K), select(0.0, x[0u * K + min(b * 32u + 16u + 3u, K - 1u)], b * 32u + 16u + 3u < K)));
      acc[1] += dot(lo0, vec4<f32>(select(0.0, x[1u * K + min(b * 32u + 0u + 0u, K - 1u)], b * 32u + 0u + 0u < K), select(0.0, x[1u * K + min(b * 32u + 0u + 1u, K - 1u)], b * 32u + 0u + 1u < K), select(0.0, x[1u * K + min(b * 32u + 0u + 2u, K - 1u)], b * 32u + 0u + 2u < K), select(0.0, x[1u * K + min(b * 32u + 0u + 3u, K - 1u)], b * 32u + 0u + 3u < K))) + dot(hi0, vec4<f32>(select(0.0, x[1u * K + min(b * 32u + 16u + 0u, K - 1u)], b * 32u + 16u + 0u < K), select(0.0, x[1u * K + min(b * 32u + 16u + 1u, K - 1u)], b * 32u + 16u + 1u < K), select(0.0, x[1u * K + min(b * 32u + 16u + 2u, K - 1u)], b * 32u + 16u + 2u < K), select(0.0, x[1u * K + min(b * 32u + 16u + 3u, K - 1u)], b * 32u + 16u + 3u < K)));
      let lo1 = s * (vec4<f32>((vec4<u32>(v[1]) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(15u)) - vec4<f32>(8.0));
      let hi1 = s * (vec4<f32>((vec4<u32>(v[1]) >> vec4<u32>(4u, 12u, 20u, 28u)) & vec4<u32>(15u)) - vec4<f32>(8.0));
      acc[0] += dot(lo1, vec4<f32>(select(0.0, x[0u * K + min(b * 32u + 4u + 0u, K - 1u)], b * 32u + 4u + 0u < K), select(0.0, x[0u * K + min(b * 32u + 4u + 1u, K - 1u)], b * 32u + 4u + 1u < K), select(0.0, x[0u * K + min(b * 32u + 4u + 2u, K - 1u)], b * 32u + 4u + 2u < K), select(0.0, x[0u * K + min(b * 32u + 4u + 3u, K - 1u)], b * 32u + 4u + 3u < K))) + dot(hi1, vec4<f32>(select(0.0, x[0u * K + min(b * 32u + 20u + 0u, K - 1u)], b * 32u + 20u + 0u < K), select(0.0, x[0u * K + min(b * 32u + 20u + 1u, K - 1u)], b * 32u + 20u + 1u < K), select(0.0, x[0u * K + min(b * 32u + 20u + 2u, K - 1u)], b * 32u + 20u + 2u < K), select(0.0, x[0u * K + min(b * 32u + 20u + 3u, K - 1u)], b * 32u + 20u + 3u < K)));
      acc[1] += dot(lo1, vec4<f32>(select(0.0, x[1u * K + min(b * 32u + 4u + 0u, K - 1u)], b * 32u + 4u + 0u < K), select(0.0, x[1u * K + min(b * 32u + 4u + 1u, K - 1u)], b * 32u + 4u + 1u < K), select(0.0, x[1u * K + min(b * 32u + 4u + 2u, K - 1u)], b * 32u + 4u + 2u < K), select(0.0, x[1u * K + min(b * 32u + 4u + 3u, K - 1u)], b * 32u + 4u + 3u < K))) + dot(hi1, vec4<f32>(select(0.0, x[1u * K + min(b * 32u + 20u + 0u, K - 1u)], b * 32u + 20u + 0u < K), select(0.0, x[1u * K + min(b * 32u + 20u + 1u, K - 1u)], b * 32u + 20u + 1u < K), select(0.0, x[1u * K + min(b * 32u + 20u + 2u, K - 1u)], b * 32u + 20u + 2u < K), select(0.0, x[1u * K + min(b * 32u + 20u + 3u, K - 1u)], b * 32u + 20u + 3u < K)));
      let lo2 = s * (vec4<f32>((vec4<u32>(v[2]) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(15u)) - vec4<f32>(8.0));
      let hi2 = s * (vec4<f32>((vec4<u32>(v[2]) >> vec4<u32>(4u, 12u, 20u, 28u)) & vec4<u32>(15u)) - vec4<f32>(8.0));
      acc[0] += dot(lo2, vec4<f32>(select(0.0, x[0u * K + min(b * 32u + 8u + 0u, K - 1u)], b * 32u + 8u + 0u < K), select(0.0, x[0u * K + min(b * 32u + 8u + 1u, K - 1u)], b * 32u + 8u + 1u < K), select(0.0, x[0u * K + min(b * 32u + 8u + 2u, K - 1u)], b * 32u + 8u + 2u < K), select(0.0, x[0u * K + min(b * 32u + 8u + 3u, K - 1u)], b * 32u + 8u + 3u < K))) + dot(hi2, vec4<f32>(select(0.0, x[0u * K + min(b * 32u + 24u + 0u, K - 1u)], b * 32u + 24u + 0u < K), select(0.0, x[0u * K + min(b * 32u + 24u + 1u, K - 1u)], b * 32u + 24u + 1u < K), select(0.0, x[0u * K + min(b * 32u + 24u + 2u, K - 1u)], b * 32u + 24u + 2u < K), select(0.0, x[0u * K + min(b * 32u + 24u + 3u, K - 1u)], b * 32u + 24u + 3u < K)));
      acc[1] += dot(lo2, vec4<f32>(select(0.0, x[1u * K + min(b * 32u + 8u + 0u, K - 1u)], b * 32u + 8u + 0u < K), select(0.0, x[1u * K + min(b * 32u + 8u + 1u, K - 1u)], b * 32u + 8u + 1u < K), select(0.0, x[1u * K + min(b * 32u + 8u + 2u, K - 1u)], b * 32u + 8u + 2u < K), select(0.0, x[1u * K + min(b * 32u + 8u + 3u, K - 1u)], b * 32u + 8u + 3u < K))) + dot(hi2, vec4<f32>(select(0.0, x[1u * K + min(b * 32u + 24u + 0u, K - 1u)], b * 32u + 24u + 0u < K), select(0.0, x[1u * K + min(b * 32u + 24u + 1u, K - 1u)], b * 32u + 24u + 1u < K), select(0.0, x[1u * K + min(b * 32u + 24u + 2u, K - 1u)], b * 32u + 24u + 2u < K), select(0.0, x[1u * K + min(b * 32u + 24u + 3u, K - 1u)], b * 32u + 24u + 3u < K)));
      let lo3 = s * (vec4<f32>((vec4<u32>(v[3]) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(15u)) - vec4<f32>(8.0));
      let hi3 = s * (vec4<f32>((vec4<u32>(v[3]) >> vec4<u32>(4u, 12u, 20u, 28u)) & vec4<u32>(15u)) - vec4<f32>(8.0));
      acc[0] += dot(lo3, vec4<f32>(select(0.0, x[0u * K + min(b * 32u + 12u + 0u, K - 1u)], b * 32u + 12u + 0u < K), select(0.0, x[0u * K + min(b * 32u + 12u + 1u, K - 1u)], b * 32u + 12u + 1u < K), select(0.0, x[0u * K + min(b * 32u + 12u + 2u, K - 1u)], b * 32u + 12u + 2u < K), select(0.0, x[0u * K + min(b * 32u + 12u + 3u, K - 1u)], b * 32u + 12u + 3u < K))) + dot(hi3, vec4<f32>(select(0.0, x[0u * K + min(b * 32u + 28u + 0u, K - 1u)], b * 32u + 28u + 0u < K), select(0.0, x[0u * K + min(b * 32u + 28u + 1u, K - 1u)], b * 32u + 28u + 1u < K), select(0.0, x[0u * K + min(b * 32u + 28u + 2u, K - 1u)], b * 32u + 28u + 2u < K), select(0.0, x[0u * K + min(b * 32u + 28u + 3u, K - 1u)], b * 32u + 28u + 3u < K)));
      acc[1] += dot(lo3, vec4<f32>(select(0.0, x[1u * K + min(b * 32u + 12u + 0u, K - 1u)], b * 32u + 12u + 0u < K), select(0.0, x[1u * K + min(b * 32u + 12u + 1u, K - 1u)], b * 32u + 12u + 1u < K), select(0.0, x[1u * K + min(b * 32u + 12u + 2u, K - 1u)], b * 32u + 12u + 2u < K), select(0.0, x[1u * K + min(b * 32u + 12u + 3u, K - 1u)], b * 32u + 12u + 3u < K))) + dot(hi3, vec4<f32>(select(0.0, x[1u * K + min(b * 32u + 28u + 0u, K - 1u)], b * 32u + 28u + 0u < K), select(0.0, x[1u * K + min(b * 32u + 28u + 1u, K - 1u)], b * 32u + 28u + 1u < K), select(0.0, x[1u * K + min(b * 32u + 28u + 2u, K - 1u)], b * 32u + 28u + 2u < K), select(0.0, x[1u * K + min(b * 32u + 28u + 3u, K - 1u)], b * 32u + 28u + 3u < K)));
    }
  }
  part[0u + lid] = acc[0];
  part[64u + lid] = acc[1];
  workgroupBarrier();
  if (t == 0u && n < N) {
    y[0u * N + n] = part[0u + lid + 0u] + part[0u + lid + 1u] + part[0u + lid + 2u] + part[0u + lid + 3u] + part[0u + lid + 4u] + part[0u + lid + 5u] + part[0u + lid + 6u] + part[0u + lid + 7u];
    y[1u * N + n] = part[64u + lid + 0u] + part[64u + lid + 1u] + part[64u + lid + 2u] + part[64u + lid + 3u] + part[64u + lid + 4u] + part[64u + lid + 5u] + part[64u + lid + 6u] + part[64u + lid + 7u];
  }
}

