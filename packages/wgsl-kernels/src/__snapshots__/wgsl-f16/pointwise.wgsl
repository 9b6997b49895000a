// scratch: []
// ---- pointwise[3x8]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f16 input1:read:f32 output:read_write:f16
// neura kernel: pointwise [3, 8]:f16, [8]:f32 -> [3, 8]:f16
// fused pointwise expression (f32 arithmetic, one let per distinct subexpression)
enable f16;
@group(0) @binding(0) var<storage, read> x0: array<f16>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f16>;

const N = 24u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= N) { return; }
  let c1 = o % 8u;
  let cr1 = o / 8u;
  let i1 = c1;
  let v0 = f32(x0[o]);
  let v1 = x1[i1];
  let t0 = f32(f16(v1));
  let t1 = (v0 + t0);
  let t2 = (0.5 * t1 * (1.0 + (sign((t1 * 0.70710678)) * (1.0 - (1.0 / (1.0 + 0.3275911 * abs((t1 * 0.70710678)))) * (0.254829592 + (1.0 / (1.0 + 0.3275911 * abs((t1 * 0.70710678)))) * (-0.284496736 + (1.0 / (1.0 + 0.3275911 * abs((t1 * 0.70710678)))) * (1.421413741 + (1.0 / (1.0 + 0.3275911 * abs((t1 * 0.70710678)))) * (-1.453152027 + (1.0 / (1.0 + 0.3275911 * abs((t1 * 0.70710678)))) * 1.061405429)))) * exp(-((t1 * 0.70710678) * (t1 * 0.70710678)))))));
  y[o] = f16(t2);
}

