// scratch: []
// ---- dropout[3x5]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: dropout [3, 5]:f32 -> [3, 5]:f32
// dropout p=0.25 seed=7 (lowbias32 mask, as ir's dropoutKeeps)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

fn lowbias32(x: u32) -> u32 {
  var h = x;
  h = h ^ (h >> 16u);
  h = h * 0x7feb352du;
  h = h ^ (h >> 15u);
  h = h * 0x846ca68bu;
  h = h ^ (h >> 16u);
  return h;
}

const N = 15u;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= N) { return; }
  let v0 = x0[o];
  let keep = lowbias32(o ^ lowbias32(7u)) >= 1073741824u;
  y[o] = select(0.0, v0 * 1.3333333730697632, keep);
}

