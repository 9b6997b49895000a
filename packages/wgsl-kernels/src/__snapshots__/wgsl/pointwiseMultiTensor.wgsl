// scratch: []
// ---- pointwiseMulti[3].g0: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 input2:read:f32 output0:read_write:f32
// neura kernel: pointwiseMulti []:f32, [3]:f32, [3]:f32 -> [3]:f32
// pointwise with 1 results (buffer)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read> x2: array<f32>;
@group(0) @binding(3) var<storage, read_write> y0: array<f32>;

const N = 3u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= N) { return; }
  let v0 = x0[0u];
  let v1 = x1[o];
  let v2 = x2[o];
  var r0: f32;
  {
    let t0 = (v1 + v2);
    let t1 = (t0 * v0);
    r0 = t1;
  }
  y0[o] = r0;
}

// ---- pointwiseMulti[2x2].g1: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input3:read:f32 input4:read:f32 output1:read_write:f32
// neura kernel: pointwiseMulti []:f32, [2, 2]:f32, [2, 2]:f32 -> [2, 2]:f32
// pointwise with 1 results (buffer)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read> x2: array<f32>;
@group(0) @binding(3) var<storage, read_write> y0: array<f32>;

const N = 4u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= N) { return; }
  let v0 = x0[0u];
  let v1 = x1[o];
  let v2 = x2[o];
  var r0: f32;
  {
    let t0 = (v1 + v2);
    let t1 = (t0 * v0);
    r0 = t1;
  }
  y0[o] = r0;
}

