// scratch: []
// ---- pointwiseReduce[3x64->3x1]: workgroup [32,1,1] grid [3,1,1] bindings input0:read:f32 input1:read:f32 output:read_write:f32 literals:read:f32
// neura kernel: pointwiseReduce [3, 64]:f32, [64]:f32 -> [3, 1]:f32
// rows: a workgroup per output reduces 64 contiguous elements (tree in shared memory)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
// float literals, read at run time so that the shader compiler cannot fold them: 0.00001
@group(0) @binding(3) var<uniform> lits: array<vec4<f32>, 1>;

const ROWS = 3u;
fn prologue(o: u32) -> f32 {
  let c1 = o % 64u;
  let cr1 = o / 64u;
  let i1 = c1;
  let v0 = x0[o];
  let v1 = x1[i1];
  let t0 = (v0 - v1);
  let t1 = (t0 * v0);
  return t1;
}
fn epilogue(v: f32) -> f32 {
  let t0 = (v + lits[0].x);
  let t1 = (1.0 / sqrt(t0));
  return t1;
}
var<workgroup> red: array<f32, 32>;

fn wg_sum(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = 16u; s > 0u; s = s >> 1u) {
    if (lid < s) { red[lid] = red[lid] + red[lid + s]; }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let w = wid.x;
  if (w >= ROWS) { return; }
  let base = w * 64u;
  let end = base + 64u;
  var acc = 0.0;
  for (var j = base + lid; j < end; j = j + 32u) { acc = acc + prologue(j); }
  let total = wg_sum(acc, lid);
  if (lid == 0u) { y[w] = epilogue(total / 64.0); }
}

