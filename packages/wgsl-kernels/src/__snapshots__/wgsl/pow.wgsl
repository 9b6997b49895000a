// scratch: []
// ---- pow[3x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: pow [3, 5]:f32, [5]:f32 -> [3, 5]:f32
// elementwise binary pow (f32 arithmetic)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

// C99 / IEEE 754 pow (PyTorch's): special values decided on the bits (a compiler may assume finite floats; WGSL's
// pow is undefined for a < 0 and for a = 0, b <= 0), then exp2(b·log2|a|) for finite non-zero a and finite b.
fn pow_ieee(a: f32, b: f32) -> f32 {
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b);
  let ma = ua & 0x7fffffffu;
  let mb = ub & 0x7fffffffu;
  // a ** ±0 = 1 and 1 ** b = 1, NaN included
  if (mb == 0u || ua == 0x3f800000u) { return 1.0; }
  if (ma > 0x7f800000u || mb > 0x7f800000u) { return bitcast<f32>(0x7fc00000u | (ub & 0u)); }
  // an odd integer exponent keeps a negative base's sign (|b| >= 2^24 is even)
  let odd = mb < 0x4b800000u && trunc(b) == b && (abs(b) % 2.0) == 1.0;
  let sign = select(0u, 0x80000000u, (ua >> 31u) == 1u && odd);
  let bneg = (ub >> 31u) == 1u;
  if (mb == 0x7f800000u) {
    // b = ±Infinity: (−1) ** ±Infinity = 1, else +Infinity when |a| > 1 and b > 0 or |a| < 1 and b < 0, else +0
    if (ma == 0x3f800000u) { return 1.0; }
    return bitcast<f32>(select(0u, 0x7f800000u, (ma > 0x3f800000u) != bneg));
  }
  // a = ±0: ±Infinity for b < 0, ±0 for b > 0; a = ±Infinity: the reverse (signed only for an odd b)
  if (ma == 0u || ma == 0x7f800000u) { return bitcast<f32>(select(0u, 0x7f800000u, (ma == 0u) == bneg) | sign); }
  if ((ua >> 31u) == 1u && trunc(b) != b) { return bitcast<f32>(0x7fc00000u | (ub & 0u)); }
  // log2|a|, a denormal's from its mantissa as an integer (float arithmetic may flush denormals to zero)
  let l = select(log2(abs(a)), log2(f32(ma)) - 149.0, ma < 0x00800000u);
  return bitcast<f32>(bitcast<u32>(exp2(b * l)) | sign);
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
  y[o] = pow_ieee(v0, v1);
}

