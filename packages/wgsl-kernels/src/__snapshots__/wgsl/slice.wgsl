// scratch: []
// ---- slice[2x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: slice [6, 5]:f32 -> [2, 5]:f32
// strided window: base 5, merged shape [2,5]
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 10u) { return; }
  let c1 = o % 5u;
  let cr1 = o / 5u;
  let c0 = cr1;
  let i = c0 * 10u + c1;
  y[o] = x[5u + i];
}

