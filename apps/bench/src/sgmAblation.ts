// Where the subgroup-matrix matmul's time goes: the shipped kernel's WGSL for a shape, and copies of it with one
// part taken out (global loads, the f16 stores into workgroup memory, the barriers), each timed alone with pass
// timestamps on a raw WebGPU dispatch (no session, no profiler). The tensor-core roof measured the same way is in
// ../shared/device/sgm-peak.mjs (615 TFLOP/s with operands re-loaded from workgroup memory every step, H100). The
// ablated kernels compute wrong products: only their time means something. Dawn toggles (`--toggles
// disable_robustness,disable_workgroup_init`) show what Dawn's own code adds.
// Run on the GPU machine: node sgm-ablation.mjs [--toggles a,b] [--shapes square-4096,...] > FILE.jsonl

import { parseArgs } from 'node:util';
import { Graph } from '@neura/ir';
import { capsFor, createDevice } from '@neura/runtime-webgpu';
import { chooseSubgroupMatrixTiling, generateKernel, type KernelPlan, type KernelSpec, loadKernels, type MatmulOp, matmulProblemOf, subgroupMatrixPlan, withF16Storage } from '@neura/wgsl-kernels';
import { nullGpu } from './nullGpu.js';
import { GPT_MATMULS, type MatmulShape } from './workloads/kernels.js';

const { values: args } = parseArgs({ options: { toggles: { type: 'string', default: '' }, shapes: { type: 'string', default: 'square-4096,fwd-fc-16384x1536x384,dw-384x1536x16384-At' }, f16: { type: 'boolean', default: false }, plans: { type: 'boolean', default: false }, 'f32-out': { type: 'boolean', default: false }, 'null-device': { type: 'boolean', default: false } } });
const toggles = args.toggles ? args.toggles.split(',') : [];
const log = (x: unknown) => console.log(JSON.stringify(x));
// --null-device: Dawn's null backend (offers the feature, runs nothing): every kernel here validated, times meaningless
const dev = await createDevice({ mixedPrecision: true, ...(args['null-device'] ? { gpu: await nullGpu(['enable-dawn-features=allow_unsafe_apis']) } : {}), dawnOptions: ['disable-dawn-features=timestamp_quantization', ...(toggles.length ? [`enable-dawn-features=${toggles.join(',')}`] : [])] });
// the null backend lists no matrix configurations: NVIDIA's 16x16x16 assumed there
const caps = args['null-device'] ? { ...capsFor(dev, 'mixed'), mixedMatmul: { m: 16, n: 16, k: 16 } } : capsFor(dev, 'mixed');
const gpu = dev.gpu;
log({ adapter: dev.name, toggles, mixedMatmul: caps.mixedMatmul, f16Inputs: args.f16, f32Out: args['f32-out'] });

/**
 * The matmul's kernel spec as the compiler would hand it over (operands f32, or f16 with --f16); `epilogue`: a
 * matmulEpilogue that adds a second [M, N] tensor (the GPT step's residual add / GELU backward read one).
 */
function specOf(s: MatmulShape, epilogue = false): KernelSpec<MatmulOp> {
  const g = new Graph();
  const dtype = args.f16 ? 'f16' : 'f32';
  const a = g.input('a', s.transA ? [s.k, s.m] : [s.m, s.k], dtype);
  const b = g.input('b', s.transB ? [s.n, s.k] : [s.k, s.n], dtype);
  const node = epilogue
    ? g.node('matmulEpilogue', [a, b, g.input('r', [s.m, s.n])], { transA: s.transA, transB: s.transB, expr: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } })
    : g.node('matmul', [a, b], { transA: s.transA, transB: s.transB });
  // --f32-out: f16 operands with an f32 product (stored straight from the matrices), as the step's f32 results are
  return { node: args['f32-out'] ? { ...node, dtype: 'f32' } : node, inputs: node.inputs.map((id) => ({ shape: g.get(id).shape, dtype: g.get(id).dtype })) } as KernelSpec<MatmulOp>;
}

/** Copies of the kernel with one part removed. */
const ABLATIONS: Record<string, (code: string) => string> = {
  shipped: (c) => c,
  // global reads replaced by a constant: what staging and MMA cost without memory traffic
  'no-global-loads': (c) => c.replace(/(vec4<f16>|f16)\([ab]\[[^\]]*\]\)/g, '$1(1.0h)'),
  // f16 stores into workgroup memory dropped: what global loads and MMA cost without staging
  'no-smem-stores': (c) => c.replace(/(As|Bs)\[s( \+ \d+u)?\] = [^;]+;/g, ''),
  // barriers of the main loop dropped (results race): what synchronisation costs
  'no-barriers': (c) => c.replace(/workgroupBarrier\(\);/g, ''),
  // both loads and stores dropped: MMA and subgroupMatrixLoad only (sgm-peak's `smem` mode, inside this loop)
  'mma-only': (c) => ABLATIONS['no-smem-stores'](ABLATIONS['no-global-loads'](c)).replace(/workgroupBarrier\(\);/g, ''),
  // f16 operands (--f16) bound as array<vec2<u32>> and bit-cast to vec4<f16> as they are read: whether Dawn's
  // SPIR-V for array<vec4<f16>> loads is what makes f16 operands slower than f32 ones (4096³, H100: 31 vs 100 TFLOP/s)
  'u32-loads': (c) =>
    ['a', 'b'].filter((n) => c.includes(`${n}: array<vec4<f16>>`)).reduce((x, n) => x.replace(`${n}: array<vec4<f16>>`, `${n}: array<vec2<u32>>`).replaceAll(`vec4<f16>(${n}[`, `bitcast<vec4<f16>>(${n}[`), c),
};

async function time(code: string, bindings: number, grid: readonly number[]): Promise<{ ms: number; median: number } | { error: string }> {
  gpu.pushErrorScope('validation');
  const module = gpu.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  const errs = info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}: ${m.message}`);
  let pipe: GPUComputePipeline | undefined;
  try {
    pipe = await gpu.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  } catch (e) {
    errs.push(String(e).slice(0, 300));
  }
  const scope = await gpu.popErrorScope();
  if (scope) errs.push(scope.message.slice(0, 300));
  if (errs.length || !pipe) return { error: errs.join(' | ').slice(0, 600) };
  const layout = pipe.getBindGroupLayout(0);
  const size = 160 * 2 ** 20; // the largest operand or output of the shapes here (16384x1536 f32: 96 MiB; split-K slices: 68 MiB)
  const bufs = Array.from({ length: bindings }, () => gpu.createBuffer({ size, usage: GPUBufferUsage.STORAGE }));
  const group = gpu.createBindGroup({ layout, entries: bufs.map((buffer, binding) => ({ binding, resource: { buffer } })) });
  const qs = gpu.createQuerySet({ type: 'timestamp', count: 2 });
  const qb = gpu.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const rb = gpu.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const once = async (timed: boolean) => {
    const enc = gpu.createCommandEncoder();
    const pass = enc.beginComputePass(timed ? { timestampWrites: { querySet: qs, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } } : undefined);
    pass.setPipeline(pipe);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(grid[0], grid[1], grid[2]);
    pass.end();
    if (timed) {
      enc.resolveQuerySet(qs, 0, 2, qb, 0);
      enc.copyBufferToBuffer(qb, 0, rb, 0, 16);
    }
    gpu.queue.submit([enc.finish()]);
    if (!timed) return gpu.queue.onSubmittedWorkDone().then(() => 0);
    await rb.mapAsync(GPUMapMode.READ);
    const t = new BigInt64Array(rb.getMappedRange().slice(0));
    rb.unmap();
    return Number(t[1] - t[0]) / 1e6;
  };
  // the GPU's clocks follow its recent load: half a second of runs first (an idle GPU reads 2-3x slow)
  for (const t0 = performance.now(); performance.now() - t0 < 500; ) await once(false);
  const ts: number[] = [];
  for (let r = 0; r < 9; r++) ts.push(await once(true));
  ts.sort((x, y) => x - y);
  for (const b of [...bufs, qb, rb]) b.destroy();
  qs.destroy();
  return { ms: ts[0], median: ts[4] };
}

// --plans: whole plans of the shipped generator side by side (main dispatch timed): Aᵀ transposed at staging vs
// loaded column-major, matmulPartials on subgroup matrices vs the fp32 tiled kernel at the e-graph's splits, and
// an epilogue (staged results) under the tiling chosen for it vs 2x2 subgroups
if (args.plans) {
  await loadKernels(['matmulPartials'], { mixed: true });
  const fp32 = capsFor(dev, 'fp32');
  for (const name of args.shapes.split(',')) {
    const s = GPT_MATMULS.find((x) => x.name === name) as MatmulShape;
    const flop = 2 * s.m * s.n * s.k;
    const p = matmulProblemOf(specOf(s));
    const chosen = chooseSubgroupMatrixTiling(s.m, s.n, caps.mixedMatmul as NonNullable<typeof caps.mixedMatmul>, caps, false, s.transA);
    const plans: [string, () => KernelPlan | undefined][] = [['shipped', () => subgroupMatrixPlan(p, caps)]];
    if (s.transA && chosen) plans.push(['transposeA', () => subgroupMatrixPlan(p, caps, { ...chosen, transposeA: true })]);
    if (s.transA)
      for (const splits of [4, 8, 16, 29]) {
        const g = new Graph();
        const a = g.input('a', [s.k, s.m]);
        const b = g.input('b', [s.k, s.n]);
        const node = g.node('matmulPartials', [a, b], { transA: true, transB: false, splits });
        const spec = { node, inputs: [a, b].map((t) => ({ shape: t.shape, dtype: 'f32' as const })) } as KernelSpec<'matmulPartials'>;
        plans.push([`partials ${splits} sgm`, () => generateKernel(spec, caps)], [`partials ${splits} fp32`, () => generateKernel(spec, fp32)]);
      }
    else {
      const e = matmulProblemOf(specOf(s, true));
      plans.push(['epilogue', () => subgroupMatrixPlan(e, caps)], ['epilogue 2x2', () => subgroupMatrixPlan(e, caps, { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, pad: 8 })], ['fp32', () => generateKernel(specOf(s), fp32)]);
    }
    for (const [variant, build] of plans) {
      let plan: KernelPlan | undefined;
      try {
        plan = build();
      } catch (e) {
        log({ shape: name, plan: variant, error: String(e).slice(0, 300) });
      }
      if (!plan) continue;
      const main = plan.dispatches[0];
      const r = await time(main.code, main.bindings.length, main.grid);
      log({ shape: name, plan: variant, dispatches: plan.dispatches.length, ...r, ...('ms' in r ? { tflops: +(flop / (r.ms * 1e-3) / 1e12).toFixed(1) } : {}), kernel: main.code.split('\n').slice(0, 2).join(' ').slice(0, 400) });
    }
  }
  dev.destroy();
  process.exit(0);
}

await loadKernels(['matmul'], { mixed: true });
for (const name of args.shapes.split(',')) {
  const s = GPT_MATMULS.find((x) => x.name === name);
  if (!s) throw new Error(`unknown shape '${name}' (known: ${GPT_MATMULS.map((x) => x.name).join(', ')})`);
  // through the f16 storage pass, as generateKernel's plans go (f16 operands declared and read as f16)
  const spec = specOf(s);
  const raw = subgroupMatrixPlan(matmulProblemOf(spec), caps);
  const plan = raw && withF16Storage(spec, raw, caps, true);
  if (!plan) throw new Error(`no subgroup-matrix tiling fits ${name}`);
  const main = plan.dispatches[0];
  const what = main.code.split('\n').find((l) => l.includes('subgroup-matrix matmul'));
  const flop = 2 * s.m * s.n * s.k;
  for (const [ablation, edit] of Object.entries(ABLATIONS)) {
    const r = await time(edit(main.code), main.bindings.length, main.grid);
    log({ shape: name, ablation, dispatches: plan.dispatches.length, ...r, ...('ms' in r ? { tflops: +(flop / (r.ms * 1e-3) / 1e12).toFixed(1) } : {}), kernel: ablation === 'shipped' ? what : undefined });
  }
}
// With f16 operands in storage: kernels that load the matrices straight from storage (no workgroup staging, no
// barriers; L1/L2 serve the reuse), 2x4 subgroups of FM x FN 16x16x16 matrices, on whole tiles only; a long K over
// few tiles is split over grid.z (partial products to separate slices: timing only, no reduction pass).
function storageDirect(s: MatmulShape, fm: number, fn: number): { code: string; grid: [number, number, number] } {
  const { m, n, k, transA, transB } = s;
  const [bm, bn] = [2 * fm * 16, 4 * fn * 16];
  const tiles = Math.ceil(m / bm) * Math.ceil(n / bn);
  const splits = tiles < 132 ? 2 ** Math.floor(Math.log2(Math.max(1, Math.min(528 / tiles, k / 512)))) : 1; // a power of 2: whole chunks
  const chunk = k / splits;
  const acc = (f: (i: number, j: number) => string) => Array.from({ length: fm }, (_, i) => Array.from({ length: fn }, (_, j) => f(i, j)).join(' ')).join('\n  ');
  // A [m,k] row-major (Aᵀ: stored [k,m], loaded column-major); B [k,n] (Bᵀ: stored [n,k], loaded column-major)
  const aAt = (i: number) => (transA ? `kk * ${m}u + r0 + ${i * 16}u, ${m}u` : `(r0 + ${i * 16}u) * ${k}u + kk, ${k}u`);
  const bAt = (j: number) => (transB ? `(c0 + ${j * 16}u) * ${k}u + kk, ${k}u` : `kk * ${n}u + c0 + ${j * 16}u, ${n}u`);
  const code = `enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium.subgroup_matrix_uniformity);
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let sg = lid / 32u;
  let r0 = wid.y * ${bm}u + (sg / 4u) * ${fm * 16}u;
  let c0 = wid.x * ${bn}u + (sg % 4u) * ${fn * 16}u;
  let yoff = wid.z * ${m * n}u;
  ${acc((i, j) => `var c${i}_${j}: subgroup_matrix_result<f32, 16, 16>;`)}
  for (var kk = wid.z * ${chunk}u; kk < (wid.z + 1u) * ${chunk}u; kk = kk + 16u) {
    ${Array.from({ length: fm }, (_, i) => `let l${i} = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, ${transA ? 'col_major' : 'row_major'}>(&a, ${aAt(i)});`).join('\n    ')}
    ${Array.from({ length: fn }, (_, j) => `let q${j} = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, ${transB ? 'col_major' : 'row_major'}>(&b, ${bAt(j)});`).join('\n    ')}
    ${acc((i, j) => `c${i}_${j} = subgroupMatrixMultiplyAccumulate(l${i}, q${j}, c${i}_${j});`)}
  }
  ${acc((i, j) => `subgroupMatrixStore<row_major>(&y, yoff + (r0 + ${i * 16}u) * ${n}u + c0 + ${j * 16}u, c${i}_${j}, ${n}u);`)}
}`;
  return { code, grid: [n / bn, m / bm, splits] };
}
// With f16 operands in storage: the shipped kernel's structure (2x4 subgroups of 4x4 matrices, 128x256x32 tiles,
// rows padded by 8, next slice prefetched into registers), but slices staged by matrix copies: each subgroup loads 2
// of A's and 4 of B's 16x16 tiles straight from storage as matrices (Aᵀ / Bᵀ loaded column-major, so every staged
// tile is row-major) and stores them into workgroup memory — no per-element f16 stores. Whole tiles only.
function copyStaged(s: MatmulShape): { code: string; grid: [number, number, number] } {
  const { m, n, k, transA, transB } = s;
  const [bm, bn, bk, pad] = [128, 256, 32, 8];
  const tiles = Math.ceil(m / bm) * Math.ceil(n / bn);
  const splits = tiles < 132 ? 2 ** Math.floor(Math.log2(Math.max(1, Math.min(528 / tiles, k / 512)))) : 1; // a power of 2: whole chunks
  const chunk = k / splits;
  const [ra, rb] = [bk + pad, bn + pad]; // staged row strides (halves)
  const acc = (f: (i: number, j: number) => string) => Array.from({ length: 4 }, (_, i) => Array.from({ length: 4 }, (_, j) => f(i, j)).join(' ')).join('\n  ');
  // A tile t (of 8 x 2): rows ti = t / 2, k-column tk = t % 2; B tile t (of 2 x 16): k-row t / 16, column t % 16
  const aTile = (q: string) => `let ti = (${q}) / 2u; let tk = (${q}) % 2u;`;
  const bTile = (q: string) => `let tk = (${q}) / 16u; let tn = (${q}) % 16u;`;
  const aFrom = transA ? `(kt + tk * 16u) * ${m}u + row0 + ti * 16u, ${m}u` : `(row0 + ti * 16u) * ${k}u + kt + tk * 16u, ${k}u`;
  const bFrom = transB ? `(col0 + tn * 16u) * ${k}u + kt + tk * 16u, ${k}u` : `(kt + tk * 16u) * ${n}u + col0 + tn * 16u, ${n}u`;
  const L = 'subgroup_matrix_left<f16, 16, 16>';
  const R = 'subgroup_matrix_right<f16, 16, 16>';
  const fetch = [0, 1].map((x) => `{ ${aTile(`sg * 2u + ${x}u`)} pa${x} = subgroupMatrixLoad<${L}, ${transA ? 'col_major' : 'row_major'}>(&a, ${aFrom}); }`)
    .concat([0, 1, 2, 3].map((x) => `{ ${bTile(`sg * 4u + ${x}u`)} pb${x} = subgroupMatrixLoad<${R}, ${transB ? 'col_major' : 'row_major'}>(&b, ${bFrom}); }`)).join('\n      ');
  const store = [0, 1].map((x) => `{ ${aTile(`sg * 2u + ${x}u`)} subgroupMatrixStore<row_major>(&As, ti * ${16 * ra}u + tk * 16u, pa${x}, ${ra}u); }`)
    .concat([0, 1, 2, 3].map((x) => `{ ${bTile(`sg * 4u + ${x}u`)} subgroupMatrixStore<row_major>(&Bs, tk * ${16 * rb}u + tn * 16u, pb${x}, ${rb}u); }`)).join('\n    ');
  const compute = [0, 16].map((kk) => `{
      ${[0, 1, 2, 3].map((i) => `let l${i} = subgroupMatrixLoad<${L}, row_major>(&As, (sm * 64u + ${i * 16}u) * ${ra}u + ${kk}u, ${ra}u);`).join('\n      ')}
      ${[0, 1, 2, 3].map((j) => `let r${j} = subgroupMatrixLoad<${R}, row_major>(&Bs, ${kk * rb}u + sn * 64u + ${j * 16}u, ${rb}u);`).join('\n      ')}
      ${Array.from({ length: 16 }, (_, q) => `c${q >> 2}_${q & 3} = subgroupMatrixMultiplyAccumulate(l${q >> 2}, r${q & 3}, c${q >> 2}_${q & 3});`).join('\n      ')}
    }`).join('\n    ');
  const code = `enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium.subgroup_matrix_uniformity);
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
var<workgroup> As: array<f16, ${bm * ra}>;
var<workgroup> Bs: array<f16, ${bk * rb}>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let sg = lid / 32u;
  let sm = sg / 4u;
  let sn = sg % 4u;
  let row0 = wid.y * ${bm}u;
  let col0 = wid.x * ${bn}u;
  let yoff = wid.z * ${m * n}u;
  let kbeg = wid.z * ${chunk}u;
  let kend = kbeg + ${chunk}u;
  ${acc((i, j) => `var c${i}_${j}: subgroup_matrix_result<f32, 16, 16>;`)}
  var pa0: ${L}; var pa1: ${L}; var pb0: ${R}; var pb1: ${R}; var pb2: ${R}; var pb3: ${R};
  { let kt = kbeg;
      ${fetch}
  }
  for (var k0 = kbeg; k0 < kend; k0 = k0 + ${bk}u) {
    ${store}
    workgroupBarrier();
    if (k0 + ${bk}u < kend) { let kt = k0 + ${bk}u;
      ${fetch}
    }
    ${compute}
    workgroupBarrier();
  }
  ${acc((i, j) => `subgroupMatrixStore<row_major>(&y, yoff + (row0 + sm * 64u + ${i * 16}u) * ${n}u + col0 + sn * 64u + ${j * 16}u, c${i}_${j}, ${n}u);`)}
}`;
  return { code, grid: [n / bn, m / bm, splits] };
}
if (args.f16)
  for (const name of args.shapes.split(',')) {
    const s = GPT_MATMULS.find((x) => x.name === name) as MatmulShape;
    if (s.m % 128 || s.n % 256 || s.k % 32) continue;
    const { code, grid } = copyStaged(s);
    const r = await time(code, 3, grid);
    log({ shape: name, ablation: `copy-staged 2x4/4x4${grid[2] > 1 ? ` split ${grid[2]}` : ''}`, ...r, ...('ms' in r ? { tflops: +((2 * s.m * s.n * s.k) / (r.ms * 1e-3) / 1e12).toFixed(1) } : {}) });
  }
if (args.f16)
  for (const name of args.shapes.split(','))
    for (const [fm, fn] of [[4, 4], [2, 4], [2, 2]]) {
      const s = GPT_MATMULS.find((x) => x.name === name) as MatmulShape;
      const [bm, bn] = [2 * fm * 16, 4 * fn * 16];
      if (s.m % bm || s.n % bn) continue;
      const { code, grid } = storageDirect(s, fm, fn);
      const r = await time(code, 3, grid);
      log({ shape: name, ablation: `storage-direct 2x4/${fm}x${fn}${grid[2] > 1 ? ` split ${grid[2]}` : ''}`, ...r, ...('ms' in r ? { tflops: +((2 * s.m * s.n * s.k) / (r.ms * 1e-3) / 1e12).toFixed(1) } : {}) });
    }
dev.destroy();
process.exit(0);
