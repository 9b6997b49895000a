// scratch: []
// ---- matmulQ8[2x5]: workgroup [64,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:i32 input2:read:i32 output:read_write:f32
// neura kernel: matmulQ8 [2, 40]:f32, [5, 16]:i32, [5, 1]:i32 -> [2, 5]:f32
// Q8_0 weight, 2 row(s): 8 threads per output column read its half blocks (16 bytes each, consecutive), dequantize d·q in registers, then sum
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> q: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read> d: array<i32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

const R = 2u;
const K = 40u;
const N = 5u;
const BLOCKS = 2u;
const WORDS = 16u;
const DWORDS = 1u;
var<workgroup> part: array<f32, 128>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let c = lid / 8u;
  let t = lid % 8u;
  let n = wid.x * 8u + c;
  var acc: array<f32, 2>;
  if (n < N) {
    for (var h = t; h < BLOCKS * 2u; h += 8u) {
      let s = unpack2x16float(bitcast<u32>(d[n * DWORDS + (h / 2u) / 2u]))[(h / 2u) % 2u];
      let v = q[n * (WORDS / 4u) + h];
      let w0 = s * vec4<f32>(f32(extractBits(v[0], 0u, 8u)), f32(extractBits(v[0], 8u, 8u)), f32(extractBits(v[0], 16u, 8u)), f32(extractBits(v[0], 24u, 8u)));
      acc[0] += dot(w0, vec4<f32>(select(0.0, x[0u * K + min(h * 16u + 0u + 0u, K - 1u)], h * 16u + 0u + 0u < K), select(0.0, x[0u * K + min(h * 16u + 0u + 1u, K - 1u)], h * 16u + 0u + 1u < K), select(0.0, x[0u * K + min(h * 16u + 0u + 2u, K - 1u)], h * 16u + 0u + 2u < K), select(0.0, x[0u * K + min(h * 16u + 0u + 3u, K - 1u)], h * 16u + 0u + 3u < K)));
      acc[1] += dot(w0, vec4<f32>(select(0.0, x[1u * K + min(h * 16u + 0u + 0u, K - 1u)], h * 16u + 0u + 0u < K), select(0.0, x[1u * K + min(h * 16u + 0u + 1u, K - 1u)], h * 16u + 0u + 1u < K), select(0.0, x[1u * K + min(h * 16u + 0u + 2u, K - 1u)], h * 16u + 0u + 2u < K), select(0.0, x[1u * K + min(h * 16u + 0u + 3u, K - 1u)], h * 16u + 0u + 3u < K)));
      let w1 = s * vec4<f32>(f32(extractBits(v[1], 0u, 8u)), f32(extractBits(v[1], 8u, 8u)), f32(extractBits(v[1], 16u, 8u)), f32(extractBits(v[1], 24u, 8u)));
      acc[0] += dot(w1, vec4<f32>(select(0.0, x[0u * K + min(h * 16u + 4u + 0u, K - 1u)], h * 16u + 4u + 0u < K), select(0.0, x[0u * K + min(h * 16u + 4u + 1u, K - 1u)], h * 16u + 4u + 1u < K), select(0.0, x[0u * K + min(h * 16u + 4u + 2u, K - 1u)], h * 16u + 4u + 2u < K), select(0.0, x[0u * K + min(h * 16u + 4u + 3u, K - 1u)], h * 16u + 4u + 3u < K)));
      acc[1] += dot(w1, vec4<f32>(select(0.0, x[1u * K + min(h * 16u + 4u + 0u, K - 1u)], h * 16u + 4u + 0u < K), select(0.0, x[1u * K + min(h * 16u + 4u + 1u, K - 1u)], h * 16u + 4u + 1u < K), select(0.0, x[1u * K + min(h * 16u + 4u + 2u, K - 1u)], h * 16u + 4u + 2u < K), select(0.0, x[1u * K + min(h * 16u + 4u + 3u, K - 1u)], h * 16u + 4u + 3u < K)));
      let w2 = s * vec4<f32>(f32(extractBits(v[2], 0u, 8u)), f32(extractBits(v[2], 8u, 8u)), f32(extractBits(v[2], 16u, 8u)), f32(extractBits(v[2], 24u, 8u)));
      acc[0] += dot(w2, vec4<f32>(select(0.0, x[0u * K + min(h * 16u + 8u + 0u, K - 1u)], h * 16u + 8u + 0u < K), select(0.0, x[0u * K + min(h * 16u + 8u + 1u, K - 1u)], h * 16u + 8u + 1u < K), select(0.0, x[0u * K + min(h * 16u + 8u + 2u, K - 1u)], h * 16u + 8u + 2u < K), select(0.0, x[0u * K + min(h * 16u + 8u + 3u, K - 1u)], h * 16u + 8u + 3u < K)));
      acc[1] += dot(w2, vec4<f32>(select(0.0, x[1u * K + min(h * 16u + 8u + 0u, K - 1u)], h * 16u + 8u + 0u < K), select(0.0, x[1u * K + min(h * 16u + 8u + 1u, K - 1u)], h * 16u + 8u + 1u < K), select(0.0, x[1u * K + min(h * 16u + 8u + 2u, K - 1u)], h * 16u + 8u + 2u < K), select(0.0, x[1u * K + min(h * 16u + 8u + 3u, K - 1u)], h * 16u + 8u + 3u < K)));
      let w3 = s * vec4<f32>(f32(extractBits(v[3], 0u, 8u)), f32(extractBits(v[3], 8u, 8u)), f32(extractBits(v[3], 16u, 8u)), f32(extractBits(v[3], 24u, 8u)));
      acc[0] += dot(w3, vec4<f32>(select(0.0, x[0u * K + min(h * 16u + 12u + 0u, K - 1u)], h * 16u + 12u + 0u < K), select(0.0, x[0u * K + min(h * 16u + 12u + 1u, K - 1u)], h * 16u + 12u + 1u < K), select(0.0, x[0u * K + min(h * 16u + 12u + 2u, K - 1u)], h * 16u + 12u + 2u < K), select(0.0, x[0u * K + min(h * 16u + 12u + 3u, K - 1u)], h * 16u + 12u + 3u < K)));
      acc[1] += dot(w3, vec4<f32>(select(0.0, x[1u * K + min(h * 16u + 12u + 0u, K - 1u)], h * 16u + 12u + 0u < K), select(0.0, x[1u * K + min(h * 16u + 12u + 1u, K - 1u)], h * 16u + 12u + 1u < K), select(0.0, x[1u * K + min(h * 16u + 12u + 2u, K - 1u)], h * 16u + 12u + 2u < K), select(0.0, x[1u * K + min(h * 16u + 12u + 3u, K - 1u)], h * 16u + 12u + 3u < K)));
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

