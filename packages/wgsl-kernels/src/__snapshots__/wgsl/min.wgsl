// scratch: []
// ---- min[3x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: min [3, 5]:f32, [5]:f32 -> [3, 5]:f32
// elementwise binary min (f32 arithmetic)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

// PyTorch's minimum: NaN if either operand is NaN, else the first operand on a tie (−0 and +0 tie); on the bits.
fn min_nan(a: f32, b: f32) -> f32 {
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b);
  if ((ua & 0x7fffffffu) > 0x7f800000u) { return a; }
  if ((ub & 0x7fffffffu) > 0x7f800000u) { return b; }
  let zeros = ((ua | ub) & 0x7fffffffu) == 0u;
  // keys ordered as the floats (−0 below +0): integer compares, which the GLSL path's folding of a float select into
  // max/min (llvmpipe: NaN and tie signs lost) does not touch
  let ka = select(ua | 0x80000000u, ~ua, (ua >> 31u) == 1u);
  let kb = select(ub | 0x80000000u, ~ub, (ub >> 31u) == 1u);
  return bitcast<f32>(select(ua, ub, !zeros && kb < ka));
}

const N = 15u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= N) { return; }
  let c1 = o % 5u;
  let cr1 = o / 5u;
  let i1 = c1;
  let v0 = x0[o];
  let v1 = x1[i1];
  y[o] = min_nan(v0, v1);
}

