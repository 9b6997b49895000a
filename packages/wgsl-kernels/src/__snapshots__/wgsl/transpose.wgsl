// scratch: []
// ---- transpose[4x2x3]: workgroup [8,8,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: transpose [2, 3, 4]:f32 -> [4, 2, 3]:f32
// tiled 8x8 shared-memory transpose of 1 matrix [6, 4] -> [4, 6]
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const R = 4u;
const C = 6u;
const T = 8u;
var<workgroup> tile: array<f32, 72>;

@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let base = wid.z * R * C;
  let r0 = wid.y * T;
  let c0 = wid.x * T;
  // read x[b, c0 + ly, r0 + lx] (contiguous in lx)
  let xc = c0 + lid.y;
  let xr = r0 + lid.x;
  if (xc < C && xr < R) { tile[lid.y * (T + 1u) + lid.x] = x[base + xc * R + xr]; }
  workgroupBarrier();
  // write y[b, r0 + ly, c0 + lx] = x[b, c0 + lx, r0 + ly] (contiguous in lx)
  let yr = r0 + lid.y;
  let yc = c0 + lid.x;
  if (yr < R && yc < C) { y[base + yr * C + yc] = tile[lid.x * (T + 1u) + lid.y]; }
}

