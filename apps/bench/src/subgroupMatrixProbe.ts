// Probe of Dawn's `chromium-experimental-subgroup-matrix` (tensor cores through WebGPU): which Dawn options expose
// it, the adapter's subgroup-matrix configurations, which WGSL spelling this Dawn build accepts, and a first
// f16-operand / f32-accumulate matmul checked against the CPU and timed. Raw WebGPU on purpose (no runtime): it
// answers "does the feature work here" before anything is built on it. Prints one JSON line per finding.
// Run: node probe.mjs (bundled with `webgpu` external; see /work/HELPERS.md).

type Dawn = { create: (o: string[]) => GPU; globals: object };
const dawn = (await import('webgpu' as string)) as Dawn;
Object.assign(globalThis, dawn.globals);

const log = (what: string, x: unknown) => console.log(JSON.stringify({ what, ...(typeof x === 'object' && x !== null ? x : { value: x }) }));
const keep: unknown[] = [];

interface SmConfig { M: number; N: number; K: number; componentType: string; resultComponentType: string }

const OPTION_SETS: string[][] = process.env.PROBE_OPTIONS ? [process.env.PROBE_OPTIONS.split(' ')] : [
  ['backend=vulkan'],
  ['backend=vulkan', 'enable-dawn-features=allow_unsafe_apis'],
  ['backend=vulkan', 'enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia'],
];

let best: { adapter: GPUAdapter; configs: SmConfig[]; opts: string[] } | undefined;
for (const opts of OPTION_SETS) {
  const gpu = dawn.create(opts);
  keep.push(gpu);
  const adapter = await gpu.requestAdapter();
  if (!adapter) { log('adapter', { opts, none: true }); continue; }
  keep.push(adapter);
  const info = adapter.info as GPUAdapterInfo & { subgroupMatrixConfigs?: SmConfig[]; subgroupMinSize?: number; subgroupMaxSize?: number };
  const configs = [...(info.subgroupMatrixConfigs ?? [])].map((c) => ({ M: c.M, N: c.N, K: c.K, componentType: c.componentType, resultComponentType: c.resultComponentType }));
  log('adapter', { opts, device: info.device, description: info.description, features: [...adapter.features].sort(), subgroupMinSize: info.subgroupMinSize, subgroupMaxSize: info.subgroupMaxSize, configs });
  if (adapter.features.has('chromium-experimental-subgroup-matrix')) best = { adapter, configs, opts };
}
if (!best) { log('verdict', { usable: false, why: 'no option set offers chromium-experimental-subgroup-matrix' }); process.exit(0); }

const { adapter, configs } = best;
const want = ['chromium-experimental-subgroup-matrix', 'shader-f16', 'subgroups', 'timestamp-query'].filter((f) => adapter.features.has(f)) as GPUFeatureName[];
const requiredLimits: Record<string, number> = {};
for (const k of ['maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX', 'maxComputeWorkgroupStorageSize', 'maxStorageBufferBindingSize', 'maxBufferSize'] as const) requiredLimits[k] = adapter.limits[k];
const device = await adapter.requestDevice({ requiredFeatures: want, requiredLimits });
keep.push(device);
device.addEventListener('uncapturederror', (e) => log('uncaptured', { message: (e as GPUUncapturedErrorEvent).error.message.slice(0, 600) }));
log('device', { opts: best.opts, features: [...device.features].sort() });

/** Compiles a module and a pipeline; returns the pipeline or the error text. */
async function build(code: string, label: string): Promise<GPUComputePipeline | string> {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code, label });
  const ci = await module.getCompilationInfo();
  const errs = ci.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
  let pipe: GPUComputePipeline | undefined;
  try {
    pipe = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' }, label });
  } catch (e) {
    errs.push(String((e as Error).message).slice(0, 800));
  }
  const scope = await device.popErrorScope();
  if (scope) errs.push(scope.message.slice(0, 800));
  return errs.length || !pipe ? errs.join(' | ') : pipe;
}

const f16Cfgs = configs.filter((c) => c.componentType === 'f16' && c.resultComponentType === 'f32');
const f32Cfgs = configs.filter((c) => c.componentType === 'f32' && c.resultComponentType === 'f32');
log('configs', { f16f32: f16Cfgs, f32f32: f32Cfgs });

// ---- WGSL spelling: old (`subgroupMatrixLoad<T>(p, off, colMajor, stride)`) or new (`subgroupMatrixLoad<T, row_major>(p, off, stride)`)
type Syntax = 'args' | 'template';
const loadOf = (syn: Syntax, ty: string, ptr: string, off: string, col: boolean, stride: string) =>
  syn === 'args' ? `subgroupMatrixLoad<${ty}>(${ptr}, ${off}, ${col}, ${stride})` : `subgroupMatrixLoad<${ty}, ${col ? 'col_major' : 'row_major'}>(${ptr}, ${off}, ${stride})`;
const storeOf = (syn: Syntax, ptr: string, off: string, v: string, col: boolean, stride: string) =>
  syn === 'args' ? `subgroupMatrixStore(${ptr}, ${off}, ${v}, ${col}, ${stride})` : `subgroupMatrixStore<${col ? 'col_major' : 'row_major'}>(${ptr}, ${off}, ${v}, ${stride})`;

// ---- the tiled kernel: f32 in memory, operands rounded to T (f16 or f32) as tiles are staged in workgroup memory
interface Tile { sgm: number; sgn: number; fm: number; fn: number; bk: number; direct: boolean }
function kernel(syn: Syntax, cfg: SmConfig, t: Tile, M: number, N: number, K: number, transA: boolean, transB: boolean): string {
  const T = cfg.componentType;
  const { sgm, sgn, fm, fn, bk } = t;
  const bm = sgm * fm * cfg.M;
  const bn = sgn * fn * cfg.N;
  const nt = sgm * sgn * 32;
  const L = `subgroup_matrix_left<${T}, ${cfg.K}, ${cfg.M}>`;
  const R = `subgroup_matrix_right<${T}, ${cfg.N}, ${cfg.K}>`;
  const C = `subgroup_matrix_result<f32, ${cfg.N}, ${cfg.M}>`;
  // staged layouts follow the global ones: A [m][k] (or [k][m] when transA), B [k][n] (or [n][k] when transB)
  const aUnits = (bm * bk) / 4;
  const bUnits = (bk * bn) / 4;
  const loads: string[] = [];
  const stores: string[] = [];
  const regs: string[] = [];
  const one = (which: 'a' | 'b', units: number, trans: boolean) => {
    const isA = which === 'a';
    const bx = isA ? bm : bn;
    const alongK = isA ? !trans : trans;
    const inner = alongK ? bk : bx; // contiguous extent inside the tile
    for (let l = 0; l < Math.ceil(units / nt); l++) {
      const r = `${which}r${l}`;
      regs.push(`var ${r}: vec4<f32>;`);
      const e = `(lid + ${l * nt}u)`;
      const co = `let i0 = (${e} % ${inner / 4}u) * 4u; let o = ${e} / ${inner / 4}u;`; // i0 along contiguous, o the other
      const x = alongK ? 'o' : 'i0';
      const k = alongK ? 'i0' : 'o';
      const g0 = isA ? 'row0' : 'col0';
      const ext = isA ? 'M' : 'N';
      const idx = isA ? (trans ? `(kt + ${k}) * M + ${g0} + ${x}` : `(${g0} + ${x}) * K + kt + ${k}`) : trans ? `(${g0} + ${x}) * K + kt + ${k}` : `(kt + ${k}) * N + ${g0} + ${x}`;
      const guard = units % nt === 0 ? '' : `if (${e} < ${units}u) `;
      loads.push(`${guard}{ ${co} ${r} = vec4<f32>(); if (${g0} + ${x} < ${ext} && kt + ${k} < K) { ${r} = ${which}[(${idx}) / 4u]; } }`);
      const sh = isA ? 'As' : 'Bs';
      stores.push(`${guard}{ ${co} let s = o * ${inner}u + i0; ${[0, 1, 2, 3].map((q) => `${sh}[s + ${q}u] = ${T}(${r}[${q}]);`).join(' ')} }`);
    }
  };
  one('a', aUnits, transA);
  one('b', bUnits, transB);
  const mm: string[] = [];
  for (let i = 0; i < fm; i++) for (let j = 0; j < fn; j++) mm.push(`var c${i}_${j}: ${C};`);
  const inner: string[] = [];
  inner.push(`for (var kk = 0u; kk < ${bk}u; kk = kk + ${cfg.K}u) {`);
  for (let i = 0; i < fm; i++) {
    const m = `(sm * ${fm * cfg.M}u + ${i * cfg.M}u)`;
    // A staged [m][k] (row-major, stride bk) or [k][m] (col-major for the left matrix, stride bm)
    inner.push(`  let l${i} = ${transA ? loadOf(syn, L, '&As', `kk * ${bm}u + ${m}`, true, `${bm}u`) : loadOf(syn, L, '&As', `${m} * ${bk}u + kk`, false, `${bk}u`)};`);
  }
  for (let j = 0; j < fn; j++) {
    const n = `(sn * ${fn * cfg.N}u + ${j * cfg.N}u)`;
    inner.push(`  let r${j} = ${transB ? loadOf(syn, R, '&Bs', `${n} * ${bk}u + kk`, true, `${bk}u`) : loadOf(syn, R, '&Bs', `kk * ${bn}u + ${n}`, false, `${bn}u`)};`);
  }
  for (let i = 0; i < fm; i++) for (let j = 0; j < fn; j++) inner.push(`  c${i}_${j} = subgroupMatrixMultiplyAccumulate(l${i}, r${j}, c${i}_${j});`);
  inner.push('}');
  const out: string[] = [];
  for (let i = 0; i < fm; i++)
    for (let j = 0; j < fn; j++) {
      const r0 = `row0 + sm * ${fm * cfg.M}u + ${i * cfg.M}u`;
      const c0 = `col0 + sn * ${fn * cfg.N}u + ${j * cfg.N}u`;
      if (t.direct) out.push(`${storeOf(syn, '&y', `(${r0}) * N + ${c0}`, `c${i}_${j}`, false, 'N')};`);
      else {
        out.push(`${storeOf(syn, '&Cs', `sg * ${cfg.M * cfg.N}u`, `c${i}_${j}`, false, `${cfg.N}u`)};`);
        out.push('workgroupBarrier();');
        out.push(`for (var e = sl; e < ${cfg.M * cfg.N}u; e = e + 32u) { let r = ${r0} + e / ${cfg.N}u; let c = ${c0} + e % ${cfg.N}u; if (r < M && c < N) { y[r * N + c] = Cs[sg * ${cfg.M * cfg.N}u + e]; } }`);
        out.push('workgroupBarrier();');
      }
    }
  return `enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium.subgroup_matrix_uniformity);
${T === 'f16' ? 'enable f16;' : ''}
enable subgroups;
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
const M = ${M}u; const N = ${N}u; const K = ${K}u;
var<workgroup> As: array<${T}, ${bm * bk}>;
var<workgroup> Bs: array<${T}, ${bk * bn}>;
${t.direct ? '' : `var<workgroup> Cs: array<f32, ${(nt / 32) * cfg.M * cfg.N}>;`}
@compute @workgroup_size(${nt})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) sl: u32, @builtin(subgroup_size) sgs: u32) {
  let row0 = wid.y * ${bm}u; let col0 = wid.x * ${bn}u;
  let sg = lid / sgs; let sm = sg / ${sgn}u; let sn = sg % ${sgn}u;
  ${mm.join('\n  ')}
  ${regs.join(' ')}
  { let kt = 0u; ${loads.join('\n  ')} }
  for (var k0 = 0u; k0 < K; k0 = k0 + ${bk}u) {
    ${stores.join('\n    ')}
    workgroupBarrier();
    if (k0 + ${bk}u < K) { let kt = k0 + ${bk}u; ${loads.join('\n    ')} }
    ${inner.join('\n    ')}
    workgroupBarrier();
  }
  ${out.join('\n  ')}
}`;
}

/** Rounds to the nearest f16 (ties away from zero: the tolerance covers the tie rule). */
const f16round = (x: number) => {
  const fr = (Math as unknown as { f16round?: (v: number) => number }).f16round;
  if (fr) return fr(x);
  if (x === 0 || !Number.isFinite(x)) return x;
  const q = 2 ** (Math.max(Math.floor(Math.log2(Math.abs(x))), -14) - 10);
  return Math.sign(x) * Math.round(Math.abs(x) / q) * q;
};

function rand(n: number, seed: number) {
  const x = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) { s = (s * 1664525 + 1013904223) >>> 0; x[i] = s / 2 ** 32 * 2 - 1; }
  return x;
}

async function runCase(syn: Syntax, cfg: SmConfig, t: Tile, M: number, N: number, K: number, transA: boolean, transB: boolean, reps: number) {
  const bm = t.sgm * t.fm * cfg.M;
  const bn = t.sgn * t.fn * cfg.N;
  const name = `${M}x${N}x${K}${transA ? ' At' : ''}${transB ? ' Bt' : ''} ${cfg.componentType} ${cfg.M}x${cfg.N}x${cfg.K} tile ${bm}x${bn}x${t.bk} sg ${t.sgm}x${t.sgn} ${t.direct ? 'direct' : 'staged'}`;
  const code = kernel(syn, cfg, t, M, N, K, transA, transB);
  const pipe = await build(code, name);
  if (typeof pipe === 'string') { log('case', { name, error: pipe }); return; }
  const A = rand(M * K, 1);
  const B = rand(K * N, 2);
  const mk = (d: Float32Array | number, usage: number) => {
    const size = typeof d === 'number' ? d : d.byteLength;
    const buf = device.createBuffer({ size, usage, mappedAtCreation: typeof d !== 'number' });
    if (typeof d !== 'number') { new Float32Array(buf.getMappedRange()).set(d); buf.unmap(); }
    return buf;
  };
  const S = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const ga = mk(A, S);
  const gb = mk(B, S);
  const gy = mk(M * N * 4, S);
  const bg = device.createBindGroup({ layout: pipe.getBindGroupLayout(0), entries: [ga, gb, gy].map((buffer, binding) => ({ binding, resource: { buffer } })) });
  const grid = [Math.ceil(N / bn), Math.ceil(M / bm)];
  const submit = (n: number) => {
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipe);
    pass.setBindGroup(0, bg);
    for (let i = 0; i < n; i++) pass.dispatchWorkgroups(grid[0], grid[1]);
    pass.end();
    device.queue.submit([enc.finish()]);
    return device.queue.onSubmittedWorkDone();
  };
  await submit(1);
  const rb = device.createBuffer({ size: M * N * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(gy, 0, rb, 0, M * N * 4);
  device.queue.submit([enc.finish()]);
  await rb.mapAsync(GPUMapMode.READ);
  const Y = new Float32Array(rb.getMappedRange().slice(0));
  rb.unmap();
  // check sampled entries against the CPU with operands rounded as the kernel rounds them
  const rnd = cfg.componentType === 'f16' ? f16round : (v: number) => v;
  let maxErr = 0;
  let maxErrExact = 0;
  let maxRef = 0;
  for (let s = 0; s < 256; s++) {
    const r = (s * 7919) % M;
    const c = (s * 104729 + 13) % N;
    let acc = 0;
    let exact = 0;
    for (let k = 0; k < K; k++) {
      const x = transA ? A[k * M + r] : A[r * K + k];
      const w = transB ? B[c * K + k] : B[k * N + c];
      acc += rnd(x) * rnd(w);
      exact += x * w;
    }
    maxErr = Math.max(maxErr, Math.abs(acc - Y[r * N + c]));
    maxErrExact = Math.max(maxErrExact, Math.abs(exact - Y[r * N + c]));
    maxRef = Math.max(maxRef, Math.abs(acc));
  }
  const times: number[] = [];
  for (let i = 0; i < 5; i++) { const t0 = performance.now(); await submit(reps); times.push((performance.now() - t0) / reps); }
  times.sort((x, y) => x - y);
  const ms = times[2];
  log('case', { name, maxErr, maxErrExact, maxRef, ok: maxErr <= 1e-4 * Math.sqrt(K), ms: +ms.toFixed(4), tflops: +((2 * M * N * K) / (ms * 1e-3) / 1e12).toFixed(1) });
  for (const b of [ga, gb, gy, rb]) b.destroy();
}

// ---- 1: which spelling compiles (a one-tile kernel)
const cfg0 = f16Cfgs[0] ?? f32Cfgs[0];
if (!cfg0) { log('verdict', { usable: false, why: 'no f16->f32 or f32->f32 configuration', configs }); process.exit(0); }
let syntax: Syntax | undefined;
for (const syn of ['template', 'args'] as Syntax[]) {
  const r = await build(kernel(syn, cfg0, { sgm: 1, sgn: 1, fm: 1, fn: 1, bk: cfg0.K, direct: true }, 64, 64, 64, false, false), `spelling-${syn}`);
  log('spelling', { syn, ok: typeof r !== 'string', error: typeof r === 'string' ? r : undefined });
  if (typeof r !== 'string' && !syntax) syntax = syn;
}
if (!syntax) { log('verdict', { usable: false, why: 'neither WGSL spelling compiles' }); process.exit(0); }

// ---- 2: small correctness cases (every config; transposes; ragged), then 3: speed
for (const c of [...f16Cfgs, ...f32Cfgs]) {
  await runCase(syntax, c, { sgm: 1, sgn: 1, fm: 1, fn: 1, bk: c.K, direct: true }, 64, 64, 64, false, false, 1);
  await runCase(syntax, c, { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 2 * c.K, direct: false }, 200, 136, 96, false, false, 1);
  await runCase(syntax, c, { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 2 * c.K, direct: false }, 256, 128, 128, true, false, 1);
  await runCase(syntax, c, { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 2 * c.K, direct: false }, 256, 128, 128, false, true, 1);
}
const tiles: Tile[] = [
  { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, direct: true },
  { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, direct: false },
  { sgm: 2, sgn: 2, fm: 2, fn: 4, bk: 32, direct: false },
  { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 32, direct: false },
  { sgm: 4, sgn: 2, fm: 2, fn: 4, bk: 32, direct: false },
  { sgm: 2, sgn: 4, fm: 4, fn: 2, bk: 32, direct: false },
  { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 64, direct: false },
];
for (const c of [...f16Cfgs.slice(0, 2), ...f32Cfgs.slice(0, 1)]) for (const t of tiles) await runCase(syntax, c, t, 4096, 4096, 4096, false, false, 10);
const c1 = f16Cfgs[0] ?? f32Cfgs[0];
for (const [M, N, K, tA, tB] of [
  [16384, 384, 384, false, false],
  [16384, 1536, 384, false, false],
  [16384, 384, 1536, false, false],
  [16384, 384, 1536, false, true],
  [384, 1536, 16384, true, false],
] as [number, number, number, boolean, boolean][])
  for (const t of [tiles[1], tiles[2], tiles[3]]) await runCase(syntax, c1, t, M, N, K, tA, tB, 20);
log('verdict', { usable: true, syntax });
for (const k of keep) void k;
device.destroy();
process.exit(0);
