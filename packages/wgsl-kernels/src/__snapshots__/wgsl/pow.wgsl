// scratch: []
// ---- pow[3x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32
// neura kernel: pow [3, 5]:f32, [5]:f32 -> [3, 5]:f32
// elementwise binary pow (f32 arithmetic)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

// a ** b as JS computes it for finite inputs: sign for integer exponents of a negative base, NaN otherwise.
fn pow_js(a: f32, b: f32) -> f32 {
  if (b == 0.0) { return 1.0; }
  let m = exp2(b * log2(abs(a)));
  if (a < 0.0) {
    if (trunc(b) != b) { return bitcast<f32>(0x7fc00000u | (bitcast<u32>(b) & 0u)); }
    let odd = abs(b) < 16777216.0 && (abs(b) % 2.0) == 1.0;
    return select(m, -m, odd);
  }
  return m;
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
  y[o] = pow_js(v0, v1);
}

