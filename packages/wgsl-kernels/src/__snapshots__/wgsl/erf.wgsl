// scratch: []
// ---- erf[3x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: erf [3, 5]:f32 -> [3, 5]:f32
// elementwise unary erf
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const N = 15u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= N) { return; }
  let v0 = x0[o];
  y[o] = select((sign(v0) * (1.0 - (1.0 / (1.0 + 0.3275911 * abs(v0))) * (0.254829592 + (1.0 / (1.0 + 0.3275911 * abs(v0))) * (-0.284496736 + (1.0 / (1.0 + 0.3275911 * abs(v0))) * (1.421413741 + (1.0 / (1.0 + 0.3275911 * abs(v0))) * (-1.453152027 + (1.0 / (1.0 + 0.3275911 * abs(v0))) * 1.061405429)))) * exp(-(v0 * v0)))), select(1.1283791671 * v0, v0, ((bitcast<u32>(v0) & 0x7fffffffu) > 0x7f800000u)), abs(v0) < 1e-4 || ((bitcast<u32>(v0) & 0x7fffffffu) > 0x7f800000u));
}

