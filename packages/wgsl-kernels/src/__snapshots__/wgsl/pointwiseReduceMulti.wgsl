// scratch: [192]
// ---- pointwiseReduceMulti[70x8->8x2]:partials: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 input1:read:f32 scratch0:read_write:f32
// neura kernel: pointwiseReduceMulti [70, 8]:f32, [70, 8]:f32 -> [8]:f32
// columns, pass 1 of 2: a thread per (output, chunk of 24 rows), 3 chunks, four loads in flight for each of 2 reductions, partials transposed into scratch
@group(0) @binding(0) var<storage, read> x0: array<f32>;
@group(0) @binding(1) var<storage, read> x1: array<f32>;
@group(0) @binding(2) var<storage, read_write> part: array<f32>;

fn prologue0(o: u32) -> f32 {
  let v0 = x0[o];
  return v0;
}
fn prologue1(o: u32) -> f32 {
  let v0 = x0[o];
  let v1 = x1[o];
  let t0 = (v0 * v1);
  return t0;
}

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let t = wid.x * 128u + lid;
  if (t >= 24u) { return; }
  let o4 = t % 8u;
  let p = t / 8u;
  let i0 = p * 24u;
  let i1 = min(i0 + 24u, 70u);
  var a0_0 = prologue0(i0 * 8u + o4);
  var a0_1 = f32(); var a0_2 = f32(); var a0_3 = f32();
  var a1_0 = prologue1(i0 * 8u + o4);
  var a1_1 = f32(); var a1_2 = f32(); var a1_3 = f32();
  var i = i0 + 1u;
  for (; i + 3u < i1; i = i + 4u) {
    a0_0 = a0_0 + prologue0(i * 8u + o4);
    a0_1 = a0_1 + prologue0((i + 1u) * 8u + o4);
    a0_2 = a0_2 + prologue0((i + 2u) * 8u + o4);
    a0_3 = a0_3 + prologue0((i + 3u) * 8u + o4);
    a1_0 = a1_0 + prologue1(i * 8u + o4);
    a1_1 = a1_1 + prologue1((i + 1u) * 8u + o4);
    a1_2 = a1_2 + prologue1((i + 2u) * 8u + o4);
    a1_3 = a1_3 + prologue1((i + 3u) * 8u + o4);
  }
  for (; i < i1; i = i + 1u) { a0_0 = a0_0 + prologue0(i * 8u + o4); a1_0 = a1_0 + prologue1(i * 8u + o4); }
  let acc0 = a0_0 + a0_1 + a0_2 + a0_3;
  let acc1 = a1_0 + a1_1 + a1_2 + a1_3;
  part[o4 * 3u + p] = acc0;
  part[(8u + o4) * 3u + p] = acc1;
}

// ---- pointwiseReduceMulti[70x8->8x2]:combine: workgroup [4,1,1] grid [16,1,1] bindings scratch0:read:f32 output0:read_write:f32 output1:read_write:f32
// neura kernel: pointwiseReduceMulti [70, 8]:f32, [70, 8]:f32 -> [8]:f32
// columns, pass 2 of 2: a workgroup per output of each of 2 reductions reduces its 3 contiguous partials (tree in shared memory)
@group(0) @binding(0) var<storage, read> part: array<f32>;
@group(0) @binding(1) var<storage, read_write> y0: array<f32>;
@group(0) @binding(2) var<storage, read_write> y1: array<f32>;

const ROWS = 16u;
fn epilogue1(v: f32) -> f32 {
  let t0 = (-v);
  return t0;
}
var<workgroup> red: array<f32, 4>;

fn wg_sum(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = 2u; s > 0u; s = s >> 1u) {
    if (lid < s) { red[lid] = red[lid] + red[lid + s]; }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}

@compute @workgroup_size(4)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let w = wid.x;
  if (w >= ROWS) { return; }
  let base = w * 3u;
  let end = base + 3u;
  var acc = 0.0;
  for (var j = base + lid; j < end; j = j + 4u) { acc = acc + part[j]; }
  let total = wg_sum(acc, lid);
  if (lid == 0u) {
    let j = w / 8u;
    let o = w % 8u;
    if (j == 0u) { y0[o] = total; }
    if (j == 1u) { y1[o] = epilogue1(total); }
  }
}

