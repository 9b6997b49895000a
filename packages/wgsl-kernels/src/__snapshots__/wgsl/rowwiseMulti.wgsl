// scratch: []
// ---- rowwiseMulti[3x64]: workgroup [32,1,1] grid [3,1,1] bindings input0:read:f32 input1:read:f32 output0:read_write:f32 output1:read_write:f32 literals:read:f32
// neura kernel: rowwiseMulti [3, 64]:f32, [64]:f32 -> [3, 64]:f32
// rowwise: a workgroup per row of 64 (32 lanes) computes 2 stat(s) by tree reductions, then the row's elements for 2 result(s)
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read_write> y0: array<f32>;
@group(0) @binding(3) var<storage, read_write> y1: array<f32>;
// float literals, read at run time so that the shader compiler cannot fold them: 0.00001
@group(0) @binding(4) var<uniform> lits: array<vec4<f32>, 1>;

const ROWS = 3u;
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
  let row = wid.x;
  if (row >= ROWS) { return; }
  let base = row * 64u;
  var a0 = 0.0;
  for (var j = lid; j < 64u; j = j + 32u) {
    let o = base + j;
    let c1 = o % 64u;
    let cr1 = o / 64u;
    let i1 = c1;
    let v0 = x0[o];
    a0 = a0 + v0;
  }
  let r0 = wg_sum(a0, lid) / 64.0;
  let s0 = r0;
  var a1 = 0.0;
  for (var j = lid; j < 64u; j = j + 32u) {
    let o = base + j;
    let c1 = o % 64u;
    let cr1 = o / 64u;
    let i1 = c1;
    let v0 = x0[o];
    let t0 = (v0 - s0);
    let t1 = (t0 * t0);
    a1 = a1 + t1;
  }
  workgroupBarrier();
  let r1 = wg_sum(a1, lid) / 64.0;
  var s1 = 0.0;
  {
    let v = r1;
    let t0 = (v + lits[0].x);
    let t1 = (1.0 / sqrt(t0));
    s1 = t1;
  }
  for (var j = lid; j < 64u; j = j + 32u) {
    let o = base + j;
    {
      let c1 = o % 64u;
      let cr1 = o / 64u;
      let i1 = c1;
      let v0 = x0[o];
      let t0 = (v0 - s0);
      let t1 = (t0 * s1);
      y0[o] = t1;
    }
    {
      let c1 = o % 64u;
      let cr1 = o / 64u;
      let i1 = c1;
      let v0 = x0[o];
      let v1 = x1[i1];
      let t0 = (v0 - s0);
      let t1 = (t0 * s1);
      let t2 = (t1 * v1);
      y1[o] = t2;
    }
  }
}

