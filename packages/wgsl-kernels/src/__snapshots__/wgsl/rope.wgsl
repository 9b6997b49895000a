// scratch: []
// ---- rope[2x4x8]: workgroup [128,1,1] grid [1,1,1] bindings input0:read:f32 output:read_write:f32
// neura kernel: rope [2, 4, 8]:f32 -> [2, 4, 8]:f32
// rope: half-split rotation over [4, 8]
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const INV = array<f32, 4>(1.0, 0.10000000149011612, 0.009999999776482582, 0.0010000000474974513);

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = wid.x * 128u + lid;
  if (o >= 64u) { return; }
  let i = o % 8u;
  let row = o / 8u;
  let pos = f32(row % 4u);
  let lo = i < 4u;
  let f = select(i - 4u, i, lo);
  let th = pos * INV[f];
  let kq = round(th * 0.159154943);
  let r = (th - kq * 6.28125) - kq * 0.00193530717;
  let c = cos(r);
  let sn = sin(r);
  let a = x[select(o - 4u, o, lo)];
  let b = x[select(o, o + 4u, lo)];
  y[o] = select(b * c + a * sn, a * c - b * sn, lo);
}

