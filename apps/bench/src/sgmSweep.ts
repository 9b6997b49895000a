// Sweep of the subgroup-matrix (tensor-core) matmul's tilings on a GPU with `chromium-experimental-subgroup-matrix`:
// (1) every matmul form (transposes, epilogue, batches, split-K, ragged and whole-block shapes) under several
// tilings against the interpreter on f16-rounded operands, then (2) GPU time (timestamps) of each tiling on the GPT
// 6x384 matmul shapes and 4096³, shipped choice first. python/reference.py's matmul_kernels is the cuBLAS side.
// Run: node sgm-bench.mjs --out=FILE [--shapes=a,b] [--tilings=all|staging|NAME,...] [--operands=f32|f16,...]
//      [--deadline=SECONDS] [--only=check,sweep]
// --operands f16: A and B stored as f16 (autocast's f16 storage), where `direct` tilings load them straight from memory.

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Graph, interpret, type PwExpr, type TensorValue, tensor } from '@neura/ir';
import { capsFor, compile, createDevice, type NeuraDevice, parseDawnOptions, seededUniform } from '@neura/runtime-webgpu';
import { generateKernel, isSpecOf, type KernelGenerator, matmulProblemOf, type SubgroupMatrixTiling, subgroupMatrixPlan, withF16Storage } from '@neura/wgsl-kernels';
import { benchMatmulShape, GPT_MATMULS } from './workloads/kernels.js';

const { values: args } = parseArgs({ options: { out: { type: 'string' }, shapes: { type: 'string' }, tilings: { type: 'string', default: 'all' }, deadline: { type: 'string', default: '420' }, only: { type: 'string' }, operands: { type: 'string', default: 'f32' } } });
const t0 = performance.now();
const left = () => Number(args.deadline) - (performance.now() - t0) / 1000;
const want = (x: string) => !args.only || args.only.split(',').includes(x);
const log = (s: string) => console.error(`[sgm] ${s}`);
const results: Record<string, unknown> = {};
const save = () => args.out && writeFileSync(args.out, JSON.stringify(results, null, 1));

/**
 * A generator that plans every matmul on subgroup matrices with tiling `t` (everything else as usual), through the
 * f16 storage pass as generateKernel's plans go.
 */
const withTiling =
  (t: SubgroupMatrixTiling): KernelGenerator =>
  (spec, caps) => {
    const plan = isSpecOf(spec, 'matmul', 'fusedMatmul', 'matmulEpilogue') && caps.mixedMatmul ? subgroupMatrixPlan(matmulProblemOf(spec), caps, t) : undefined;
    return plan ? withF16Storage(spec, plan, caps, true) : generateKernel(spec, caps);
  };
/** A short name of a tiling: subgroups / matrices per subgroup / slice depth, padding, double buffering. */
const nameOf = (t: SubgroupMatrixTiling) =>
  `${t.sgm}x${t.sgn}/${t.fm}x${t.fn}/bk${t.bk}${t.pad ? `/p${t.pad}` : ''}${t.group ? `/g${t.group}` : ''}${t.db ? '+db' : ''}${t.transposeA ? '/tA' : ''}${t.stage === 'lanes' ? '/lanes' : ''}${t.direct ? '/direct' : ''}${t.results === 'memory' ? '/memory' : ''}`;

/** Layouts of subgroups (SGM x SGN) and result matrices per subgroup (FM x FN), the likeliest first. */
const LAYOUTS: [number, number, number, number][] = [
  [2, 4, 4, 4], // 128x256, 8 subgroups
  [4, 2, 4, 4], // 256x128, 8
  [2, 2, 4, 4], // 128x128, 4
  [4, 4, 2, 4], // 128x256, 16
  [4, 4, 4, 2], // 256x128, 16
  [4, 2, 2, 4], // 128x128, 8
  [2, 4, 4, 2], // 128x128, 8
  [4, 4, 4, 4], // 256x256, 16
  [2, 2, 2, 4], // 64x128, 4
  [2, 2, 4, 2], // 128x64, 4
  [4, 4, 2, 2], // 128x128, 16
  [2, 2, 2, 2], // 64x64, 4
];
/**
 * Tilings swept: for the first three layouts padded rows in bands of 8 tile rows, padded row by row, unpadded
 * (the effect of each), then the other layouts padded in bands; each double-buffered or not, slices of 32 or 64.
 */
const variants = ([sgm, sgn, fm, fn]: [number, number, number, number], pad: number, group: number) =>
  [true, false].flatMap((db) => [32, 64].map((bk) => ({ sgm, sgn, fm, fn, bk, pad, db, group })));
const ALL: SubgroupMatrixTiling[] = [
  ...LAYOUTS.slice(0, 3).flatMap((l) => [...variants(l, 8, 8), ...variants(l, 8, 0), ...variants(l, 0, 0)]),
  ...LAYOUTS.slice(3).flatMap((l) => variants(l, 8, 8)),
];
/** How operands reach the matrices: staged lane by lane (consecutive f16 stores), or (f16 operands) loaded straight from memory. */
const STAGING: SubgroupMatrixTiling[] = [
  { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, stage: 'lanes' },
  { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, pad: 8, stage: 'lanes' },
  { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 64, pad: 8, stage: 'lanes' },
  ...[[2, 4, 4, 4], [2, 2, 4, 4], [4, 2, 4, 4], [2, 4, 2, 4], [2, 2, 2, 4], [2, 2, 2, 2]].map(([sgm, sgn, fm, fn]) => ({ sgm, sgn, fm, fn, bk: 32, direct: true })),
  { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, direct: true, group: 8 },
];
/** How results that need per-element work leave: finished from memory instead of staged through workgroup memory. */
const RESULTS: SubgroupMatrixTiling[] = [
  { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, results: 'memory' },
  { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 32, pad: 8, results: 'memory' },
];
const tilings = args.tilings === 'all' ? [...ALL, ...STAGING] : args.tilings === 'staging' ? STAGING : [...ALL, ...STAGING, ...RESULTS].filter((t) => args.tilings?.split(',').includes(nameOf(t)));
const operandKinds = (args.operands ?? 'f32').split(',') as ('f32' | 'f16')[];

const dev: NeuraDevice = await createDevice({ mixedPrecision: true, dawnOptions: [...parseDawnOptions(process.env.NEURA_DAWN_OPTIONS ?? ''), 'disable-dawn-features=timestamp_quantization'] });
results.adapter = { name: dev.name, subgroupMatrixConfigs: dev.adapterInfo.subgroupMatrixConfigs, limits: { maxComputeWorkgroupStorageSize: dev.caps.maxComputeWorkgroupStorageSize } };
log(`adapter ${dev.name}`);
try {
  results.mixedCaps = capsFor(dev, 'mixed').mixedMatmul;
} catch (e) {
  results.error = String(e);
  save();
  process.exit(1);
}

/**
 * f16 rounding, ties to even, or (`towardZero`) truncated: WGSL leaves the rounding of an f32 -> f16 conversion to the
 * implementation (either neighbour), and NVIDIA's compiler picks one per kernel.
 */
function f16(x: number, towardZero = false): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  const q = 2 ** (Math.max(Math.floor(Math.log2(a)), -14) - 10);
  const t = a / q;
  let r = towardZero ? Math.floor(t) : Math.round(t);
  if (!towardZero && r - t === 0.5 && r % 2 === 1) r -= 1;
  return Math.sign(x) * r * q;
}

// (1) correctness of every form under the shipped choice and under candidate tilings
if (want('check')) {
  const forms: { name: string; a: number[]; b: number[]; transA?: boolean; transB?: boolean; epilogue?: boolean; partials?: number; f16?: boolean }[] = [
    { name: 'A·B whole blocks (direct stores)', a: [256, 64], b: [64, 272] },
    { name: 'A·B partial tiles', a: [200, 96], b: [96, 136] },
    { name: 'A·B odd', a: [97, 37], b: [37, 65] },
    { name: 'Aᵀ·B', a: [96, 130], b: [96, 72], transA: true },
    { name: 'A·Bᵀ', a: [130, 64], b: [72, 64], transB: true },
    { name: 'Aᵀ·Bᵀ', a: [64, 130], b: [72, 64], transA: true, transB: true },
    { name: 'bias+GELU epilogue', a: [160, 48], b: [48, 100], epilogue: true },
    { name: 'bias+GELU epilogue Aᵀ, whole blocks', a: [96, 256], b: [96, 128], transA: true, epilogue: true },
    { name: 'bias+GELU epilogue Bᵀ', a: [160, 48], b: [100, 48], transB: true, epilogue: true },
    { name: 'batched', a: [3, 80, 24], b: [3, 24, 40] },
    { name: 'split-K Aᵀ', a: [2100, 96], b: [2100, 40], transA: true },
    { name: 'split-K Aᵀ whole blocks', a: [2048, 64], b: [2048, 128], transA: true },
    // matmulPartials (weight gradients): chunk 432 ends mid-slice; whole blocks stored straight
    { name: 'partials Aᵀ ×5', a: [2100, 96], b: [2100, 40], transA: true, partials: 5 },
    { name: 'partials Aᵀ ×8 whole blocks', a: [2048, 64], b: [2048, 128], transA: true, partials: 8 },
    // f16 operands in memory (f16 result): loaded straight from memory by `direct` tilings
    { name: 'f16 A·B', a: [256, 64], b: [64, 272], f16: true },
    { name: 'f16 A·B partial tiles', a: [208, 96], b: [96, 144], f16: true },
    { name: 'f16 Aᵀ·B', a: [96, 128], b: [96, 80], transA: true, f16: true },
    { name: 'f16 A·Bᵀ', a: [128, 64], b: [80, 64], transB: true, f16: true },
    { name: 'f16 Aᵀ·Bᵀ', a: [64, 128], b: [80, 64], transA: true, transB: true, f16: true },
    { name: 'f16 batched', a: [3, 80, 32], b: [3, 32, 48], f16: true },
    { name: 'f16 split-K Aᵀ', a: [2112, 96], b: [2112, 48], transA: true, f16: true },
    { name: 'f16 bias+GELU epilogue', a: [160, 48], b: [48, 112], epilogue: true, f16: true },
  ];
  const candidates: (SubgroupMatrixTiling | undefined)[] = [
    undefined,
    { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, pad: 8 },
    { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, db: true },
    { sgm: 4, sgn: 2, fm: 4, fn: 4, bk: 64, pad: 8 },
    { sgm: 2, sgn: 2, fm: 2, fn: 4, bk: 64, pad: 8, db: true },
    { sgm: 4, sgn: 4, fm: 2, fn: 2, bk: 32, pad: 8, db: true },
    { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 32, pad: 8, db: true, group: 2 },
    { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 64, pad: 8, group: 8 },
    { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, transposeA: true },
    { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, stage: 'lanes' },
    { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, direct: true },
    { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 32, direct: true },
    ...RESULTS,
  ];
  // --tilings NAME,...: the check runs the shipped choice and those tilings only
  const out: unknown[] = [];
  for (const c of forms) {
    const g = new Graph();
    const a = g.input('a', c.a, c.f16 ? 'f16' : 'f32');
    const b = g.input('b', c.b, c.f16 ? 'f16' : 'f32');
    const attrs = { transA: c.transA ?? false, transB: c.transB ?? false };
    const n = c.b[c.b.length - (attrs.transB ? 2 : 1)];
    const k = c.a[c.a.length - (attrs.transA ? 2 : 1)];
    const dt = c.f16 ? 'f16' : 'f32';
    const feeds: Record<string, TensorValue> = { a: tensor(c.a, seededUniform(c.a.reduce((x, y) => x * y, 1), 11), dt), b: tensor(c.b, seededUniform(c.b.reduce((x, y) => x * y, 1), 12), dt) };
    let y: ReturnType<Graph['input']>;
    if (c.epilogue) {
      feeds.bias = tensor([n], seededUniform(n, 13));
      const expr: PwExpr = { op: 'geluTanh', a: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } };
      y = g.node('matmulEpilogue', [a, b, g.input('bias', [n])], { ...attrs, expr });
    } else if (c.partials) y = g.matmulPartials(a, b, c.partials, attrs);
    else y = g.matmul(a, b, attrs);
    g.output('y', y);
    const round = (v: TensorValue) => tensor(v.shape, Array.from(v.data, (x) => f16(x)), v.dtype);
    const rounded = interpret(g, { ...feeds, a: round(feeds.a), b: round(feeds.b) }, {}, 'f32').outputs.y.data;
    // the same with A's (then both operands') f16 conversion truncated: which rounding the kernel really did
    const truncate = (v: TensorValue) => tensor(v.shape, Array.from(v.data, (x) => f16(x, true)), v.dtype);
    const truncatedA = interpret(g, { ...feeds, a: truncate(feeds.a), b: round(feeds.b) }, {}, 'f32').outputs.y.data;
    const truncatedAB = interpret(g, { ...feeds, a: truncate(feeds.a), b: truncate(feeds.b) }, {}, 'f32').outputs.y.data;
    const maxDiff = (x: ArrayLike<number>, y: ArrayLike<number>) => Array.from(x).reduce((m, v, i) => Math.max(m, Math.abs(v - y[i])), 0);
    for (const t of args.tilings === 'all' ? candidates : [undefined, ...tilings]) {
      if (t?.direct && !c.f16) continue; // direct loads read f16 operands only
      const name = `${c.name} @ ${t ? nameOf(t) : 'shipped'}`;
      try {
        const session = await compile(g, dev, { precision: 'mixed', label: c.name, ...(t ? { generator: withTiling(t) } : {}) });
        const gpu = (await session.step(feeds, { read: ['y'] })).outputs.y.data;
        session.dispose();
        let err = 0;
        let big = 0;
        for (let i = 0; i < gpu.length; i++) {
          err = Math.max(err, Math.abs(gpu[i] - rounded[i]));
          big = Math.max(big, Math.abs(rounded[i]));
        }
        // an f16 result is rounded once more (half an f16 ulp: 2^-11 relative)
        const ok = err <= (c.f16 ? 6e-4 : 1e-4) * big + 2e-5 * Math.sqrt(k);
        // where a failing check goes wrong: the worst elements (flat index, row, column of the last two axes)
        const cols = y.shape[y.shape.length - 1];
        const rows = y.shape[y.shape.length - 2];
        const worst = ok
          ? undefined
          : Array.from(gpu, (v, i) => ({ i, r: Math.floor(i / cols) % rows, c: i % cols, gpu: v, ref: rounded[i], d: Math.abs(v - rounded[i]) }))
              .filter((x) => x.d > 1e-4 * big)
              .sort((x, z) => z.d - x.d);
        out.push({ name, maxErrVsRounded: err, maxAbs: big, ok, ...(ok ? {} : { maxErrVsTruncatedA: maxDiff(gpu, truncatedA), maxErrVsTruncatedAB: maxDiff(gpu, truncatedAB) }), ...(worst ? { bad: worst.length, worst: worst.slice(0, 12), badRows: [...new Set(worst.map((x) => x.r))].slice(0, 40), badCols: [...new Set(worst.map((x) => x.c))].slice(0, 40) } : {}) });
        log(`check ${name}: ${ok ? 'ok' : 'FAIL'} ${err.toExponential(2)}`);
      } catch (e) {
        out.push({ name, error: String(e).slice(0, 1200) });
        log(`check ${name}: ERROR ${String(e).slice(0, 600)}`);
      }
    }
  }
  results.checks = out;
  results.checksFailed = out.filter((x) => !(x as { ok?: boolean }).ok).length;
  save();
}

// (2) GPU time per tiling and shape (shipped choice first; tilings outermost, so a deadline cuts the least likely
// tilings on every shape rather than whole shapes)
if (want('sweep')) {
  const shapes = args.shapes ? args.shapes.split(',').flatMap((n) => GPT_MATMULS.filter((s) => s.name === n)) : GPT_MATMULS;
  const sweep: Record<string, Record<string, unknown>> = Object.fromEntries(shapes.map((s) => [s.name, {}]));
  results.sweep = sweep;
  for (const t of [undefined, ...tilings])
    for (const operands of operandKinds) {
    if (left() < 0) break;
    if (t?.direct && operands !== 'f16') continue;
    const key = `${t ? nameOf(t) : 'shipped'}${operands === 'f16' ? ' (f16 operands)' : ''}`;
    for (const s of shapes) {
      try {
        const r = await benchMatmulShape(s, dev, 10, undefined, 'mixed', t ? withTiling(t) : undefined, operands);
        sweep[s.name][key] = { ms: +r.medianMs.toFixed(5), tflops: +(r.tflops ?? 0).toFixed(1), ...(t ? {} : { plan: r.plan }) };
        log(`${s.name} ${key}: ${r.medianMs.toFixed(4)} ms ${r.tflops?.toFixed(1)} TFLOP/s`);
      } catch (e) {
        sweep[s.name][key] = { error: String(e).slice(0, 300) };
        log(`${s.name} ${key}: ERROR ${String(e).slice(0, 300)}`);
      }
    }
    save();
  }
  for (const [name, row] of Object.entries(sweep)) {
    const best = Object.entries(row).filter(([, v]) => (v as { tflops?: number }).tflops).sort(([, x], [, y]) => (y as { tflops: number }).tflops - (x as { tflops: number }).tflops);
    log(`${name} best: ${best.slice(0, 6).map(([k, v]) => `${k} ${(v as { tflops: number }).tflops}`).join(', ')}`);
  }
}
results.seconds = (performance.now() - t0) / 1000;
save();
dev.destroy();
process.exit(0);
