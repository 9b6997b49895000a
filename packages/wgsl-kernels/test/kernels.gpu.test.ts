// Every GPU op's kernel against the reference interpreter (float32 mode) on a real WebGPU device, at small
// shapes with odd sizes and broadcasting, under the device's caps and under small (COMPAT_CAPS-like) limits.
import { describe, expect, it } from 'vitest';
import {
  BINARY_OPS,
  columnsPath,
  COMPARISON_OPS,
  type DType,
  Graph,
  interpret,
  leafName,
  matmulSplitK,
  mulberry32,
  type Node,
  numel,
  type OpAttrs,
  type OpKind,
  poolExtent,
  type PwExpr,
  type RowStat,
  type Shape,
  type TensorValue,
  UNARY_OPS,
  tensor,
} from '@neura/ir';
import {
  checkPlan,
  COMPAT_CAPS,
  type DeviceCaps,
  generateKernel,
  type GpuOp,
  KERNELS,
  loadKernels,
  type KernelPlan,
  type KernelSpec,
  MATMUL_CANDIDATES,
  MATMUL_CONFIGS,
  type MatmulConfig,
  chooseSplitK,
  reduceKernel,
  type FlashConfig,
  GEMM_GRAD_CONFIGS,
  type GemmGradConfig,
  gemmGradFits,
  flashAttentionGradKVPlan,
  flashAttentionGradPlan,
  flashAttentionGradQKVPlan,
  flashAttentionLsePlan,
  flashAttentionPlan,
  MATMUL_LARGE,
  matmulConfigFits,
  matmulKernel,
  matmulPlanWith,
  pointwiseMultiKernel,
  attentionGradKVKernel,
  attentionWithLseKernel,
} from '@neura/wgsl-kernels';
import { runPlan, testCaps } from '../../../tooling/test/gpu.js';

// every generator, the on-demand ones too (compile loads them per graph; these tests call the generators directly)
await loadKernels(Object.keys(KERNELS) as OpKind[]);

const SMALL64: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 64, maxComputeWorkgroupSizeX: 64, maxComputeWorkgroupSizeY: 64 };
// Cap sets by name, so test titles say which limits a failure ran under.
const CAPS = ['device caps', 'COMPAT_CAPS', '64 invocations'] as const;
const capsFor = (name: (typeof CAPS)[number]): Promise<DeviceCaps> =>
  name === 'device caps' ? testCaps() : Promise.resolve(name === 'COMPAT_CAPS' ? COMPAT_CAPS : SMALL64);

type Gen = 'any' | 'positive' | 'nonzero' | 'int' | 'small-int' | 'bool' | 'labels';

let seed = 1;
function randomValue(shape: Shape, dtype: DType, gen: Gen, classes = 1): TensorValue {
  const r = mulberry32(seed++);
  const n = numel(shape);
  const d: number[] = [];
  for (let i = 0; i < n; i++) {
    const u = r();
    if (gen === 'labels') d.push(Math.floor(u * classes));
    else if (gen === 'bool') d.push(u < 0.5 ? 1 : 0);
    else if (gen === 'int') d.push(Math.floor(u * 21) - 10);
    else if (gen === 'small-int') d.push(Math.floor(u * 7) - 3);
    else if (gen === 'positive') d.push(0.1 + 3 * u);
    else if (gen === 'nonzero') d.push((u < 0.5 ? -1 : 1) * (0.5 + 2 * r()));
    else d.push(4 * u - 2);
  }
  return tensor(shape, d, dtype);
}

interface Operand {
  shape: Shape;
  dtype?: DType;
  gen?: Gen;
  classes?: number;
  /** Use an earlier operand's leaf (same node) again. */
  same?: number;
}

/** Builds `op(operands)`, runs its kernel and compares with the interpreter in float32 mode. */
async function check<K extends OpKind>(
  op: K,
  operands: Operand[],
  attrs: OpAttrs[K],
  caps: DeviceCaps,
  tol: { rtol?: number; atol?: number; inPlace?: number; exact?: boolean; plan?: (spec: KernelSpec<K>, caps: DeviceCaps) => KernelPlan } = {},
): Promise<void> {
  const g = new Graph();
  const feeds: Record<string, TensorValue> = {};
  const leaves: Node[] = [];
  operands.forEach((o, i) => {
    if (o.same !== undefined) {
      leaves.push(leaves[o.same]);
      return;
    }
    const dtype = o.dtype ?? 'f32';
    const leaf = g.input(`x${i}`, o.shape, dtype);
    feeds[`x${i}`] = randomValue(o.shape, dtype, o.gen ?? (dtype === 'f32' ? 'any' : dtype === 'bool' ? 'bool' : 'int'), o.classes);
    leaves.push(leaf);
  });
  const node = g.node(op, leaves, attrs);
  g.output('y', node);
  const expected = interpret(g, feeds, {}, 'f32').outputs.y;
  const spec: KernelSpec<K> = { node, inputs: leaves.map((l) => ({ shape: l.shape, dtype: l.dtype })), inPlace: tol.inPlace };
  const plan = tol.plan ? tol.plan(spec, caps) : generateKernel(spec, caps);
  if (tol.plan) checkPlan(spec, plan, caps);
  const data = leaves.map((l) => feeds[leafName(l) as string].data);
  const bytes = await runPlan(plan, data, numel(node.shape) * 4, { resultFrom: tol.inPlace });
  const actual = node.dtype === 'f32' ? new Float32Array(bytes) : new Int32Array(bytes);
  if (tol.exact) expect(Array.from(actual)).toEqual(Array.from(expected.data));
  else expect(actual).toBeAllclose(expected.data, { rtol: tol.rtol ?? 1e-5, atol: tol.atol ?? 1e-5 });
}

const E: Record<string, never> = {};
const UNARY_GEN: Partial<Record<string, Gen>> = { log: 'positive', sqrt: 'positive', rsqrt: 'positive', recip: 'nonzero' };
const UNARY_TOL: Partial<Record<string, { rtol: number; atol: number }>> = { sin: { rtol: 1e-4, atol: 1e-4 }, cos: { rtol: 1e-4, atol: 1e-4 }, tanh: { rtol: 1e-4, atol: 1e-5 }, exp: { rtol: 1e-5, atol: 1e-5 } };

describe.each(CAPS)('kernels with %s', (capsName) => {
  const getCaps = () => capsFor(capsName);
  describe('elementwise', () => {
    it.each(UNARY_OPS.map((op) => [op]))('%s matches the interpreter', async (op) => {
      const caps = await getCaps();
      for (const shape of [[7], [3, 65], []] as Shape[]) await check(op, [{ shape, gen: UNARY_GEN[op] }], E, caps, UNARY_TOL[op]);
    });

    it.each(BINARY_OPS.map((op) => [op]))('%s broadcasts like numpy', async (op) => {
      const caps = await getCaps();
      const gb: Gen = op === 'div' ? 'nonzero' : op === 'pow' ? 'small-int' : 'any';
      const ga: Gen = op === 'pow' ? 'nonzero' : 'any';
      const pairs: [Shape, Shape][] = [[[4, 5], [4, 5]], [[3, 1, 5], [4, 1]], [[], [6]], [[2, 3, 7], [7]], [[5, 1], [1, 130]]];
      for (const [a, b] of pairs) await check(op, [{ shape: a, gen: ga }, { shape: b, gen: gb }], E, caps, { rtol: 1e-5, atol: 1e-5 });
    });

    it.each(BINARY_OPS.filter((op) => op !== 'pow').map((op) => [op]))('%s on i32 operands uses integer arithmetic', async (op) => {
      const caps = await getCaps();
      await check(op, [{ shape: [3, 4], dtype: 'i32' }, { shape: [4], dtype: 'i32', gen: op === 'div' ? 'small-int' : 'int' }], E, caps);
    });

    it('compares against itself through one binding when both operands are the same node', async () => {
      const caps = await getCaps();
      await check('mul', [{ shape: [9] }, { shape: [9], same: 0 }], E, caps);
      await check('ge', [{ shape: [9] }, { shape: [9], same: 0 }], E, caps);
    });

    it('pow with a negative base and integer exponents matches JS', async () => {
      const caps = await getCaps();
      await check('pow', [{ shape: [40], gen: 'nonzero' }, { shape: [40], gen: 'small-int' }], E, caps, { rtol: 1e-5, atol: 1e-6 });
    });

    it('where selects with broadcasting, for f32 and i32 branches', async () => {
      const caps = await getCaps();
      await check('where', [{ shape: [3, 4], dtype: 'bool' }, { shape: [4] }, { shape: [3, 1] }], E, caps);
      await check('where', [{ shape: [5], dtype: 'bool' }, { shape: [5], dtype: 'i32' }, { shape: [], dtype: 'i32' }], E, caps);
    });

    it('cast converts between every pair of dtypes', async () => {
      const caps = await getCaps();
      const dts: DType[] = ['f32', 'i32', 'bool'];
      for (const from of dts)
        for (const to of dts) {
          if (from === to) continue;
          const gen: Gen | undefined = from === 'f32' ? 'small-int' : undefined;
          await check('cast', [{ shape: [11], dtype: from, gen }], { to }, caps);
          if (from === 'f32') await check('cast', [{ shape: [11], dtype: from }], { to }, caps);
        }
    });

    it('expand broadcasts to a larger shape', async () => {
      const caps = await getCaps();
      await check('expand', [{ shape: [3, 1] }], { shape: [2, 3, 5] }, caps);
      await check('expand', [{ shape: [] , dtype: 'i32' }], { shape: [7] }, caps);
      await check('expand', [{ shape: [1, 4] }], { shape: [3, 4] }, caps);
    });

    it('pointwise evaluates a fused expression DAG with shared subexpressions and constants', async () => {
      const caps = await getCaps();
      const x: PwExpr = { op: 'in', index: 0 };
      const b: PwExpr = { op: 'in', index: 1 };
      const t: PwExpr = { op: 'add', a: x, b };
      // (t * sigmoid(t)) + where(t > 0, t^3, -t^-2) + cast:i32(t * 3)
      const expr: PwExpr = {
        op: 'add',
        a: { op: 'add', a: { op: 'mul', a: t, b: { op: 'sigmoid', a: t } }, b: { op: 'where', c: { op: 'gt', a: t, b: { op: 'const', value: 0 } }, a: { op: 'pow', a: t, b: { op: 'const', value: 3 } }, b: { op: 'neg', a: { op: 'pow', a: t, b: { op: 'const', value: -2 } } } } },
        b: { op: 'cast', to: 'i32', a: { op: 'mul', a: t, b: { op: 'const', value: 3 } } },
      };
      await check('pointwise', [{ shape: [4, 6] }, { shape: [6] }], { expr, dtype: 'f32' }, caps, { rtol: 1e-4, atol: 1e-4 });
      // an i32 and a bool input, a comparison result stored as bool
      const cmp: PwExpr = { op: 'lt', a: { op: 'mul', a: { op: 'cast', to: 'f32', a: { op: 'in', index: 0 } }, b: { op: 'const', value: 0.5 } }, b: { op: 'in', index: 1 } };
      await check('pointwise', [{ shape: [5, 3], dtype: 'i32' }, { shape: [3] }, { shape: [5, 1], dtype: 'bool' }], { expr: { op: 'where', c: { op: 'in', index: 2 }, a: cmp, b: { op: 'const', value: 1 } }, dtype: 'bool' }, caps);
      // a non-finite constant
      await check('pointwise', [{ shape: [8] }], { expr: { op: 'max', a: x, b: { op: 'const', value: -Infinity } }, dtype: 'f32' }, caps);
    });

    it('runs in place: the result is written through the operand buffer', async () => {
      const caps = await getCaps();
      await check('add', [{ shape: [6, 7] }, { shape: [7] }], E, caps, { inPlace: 0 });
      await check('mul', [{ shape: [3] }, { shape: [5, 3] }], E, caps, { inPlace: 1 });
      await check('pointwise', [{ shape: [33] }, { shape: [33] }], { expr: { op: 'sub', a: { op: 'in', index: 0 }, b: { op: 'mul', a: { op: 'const', value: 0.1 }, b: { op: 'in', index: 1 } } }, dtype: 'f32' }, caps, { inPlace: 0 });
    });

    it('pointwiseMulti computes its result 0 (an unused result skipped, so it binds only what result 0 reads)', async () => {
      const caps = await getCaps();
      const x0: PwExpr = { op: 'in', index: 0 };
      const x1: PwExpr = { op: 'in', index: 1 };
      const exprs: PwExpr[] = [
        { op: 'sub', a: x0, b: { op: 'mul', a: { op: 'sqrt', a: { op: 'abs', a: x1 } }, b: { op: 'const', value: 0.5 } } },
        { op: 'mul', a: { op: 'in', index: 2 }, b: x1 },
      ];
      const plan = (spec: KernelSpec<'pointwiseMulti'>, c: DeviceCaps) => pointwiseMultiKernel({ ...spec, results: ['buffer', 'unused'] }, c);
      await check('pointwiseMulti', [{ shape: [5, 7] }, { shape: [7] }, { shape: [5, 7] }], { exprs, dtype: 'f32' }, caps, { rtol: 1e-5, atol: 1e-6, plan });
    });
  });

  describe('matmul', () => {
    const shapes: [number, number, number][] = [[1, 10, 3], [5, 7, 9], [33, 17, 65], [64, 64, 64], [70, 130, 20]];
    it.each([[false, false], [true, false], [false, true], [true, true]])('matmul transA=%s transB=%s at odd sizes', async (transA, transB) => {
      const caps = await getCaps();
      for (const [m, n, k] of shapes)
        await check('matmul', [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }], { transA, transB }, caps, { rtol: 1e-4, atol: 1e-4 });
    });

    it('fusedMatmul adds a broadcast bias and applies relu', async () => {
      const caps = await getCaps();
      for (const [m, n, k] of shapes.slice(0, 4)) {
        await check('fusedMatmul', [{ shape: [m, k] }, { shape: [k, n] }, { shape: [n] }], { transA: false, transB: false, bias: true, activation: 'relu' }, caps, { rtol: 1e-4, atol: 1e-4 });
        await check('fusedMatmul', [{ shape: [k, m] }, { shape: [n, k] }, { shape: [m, 1] }], { transA: true, transB: true, bias: true, activation: 'none' }, caps, { rtol: 1e-4, atol: 1e-4 });
      }
      await check('fusedMatmul', [{ shape: [9, 4] }, { shape: [4, 6] }], { transA: false, transB: false, bias: false, activation: 'relu' }, caps, { rtol: 1e-4, atol: 1e-4 });
    });

    it.each([[false, false], [true, false], [false, true], [true, true]])('every tiled configuration that fits, vec4 and scalar loads (transA=%s transB=%s)', async (transA, transB) => {
      const caps = await getCaps();
      const sizes: [number, number, number][] = [[36, 44, 20], [130, 132, 24], [33, 17, 65]];
      for (const cfg of MATMUL_CONFIGS.filter((c) => matmulConfigFits(c, caps)))
        for (const [m, n, k] of sizes)
          await check('fusedMatmul', [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }, { shape: [n] }], { transA, transB, bias: true, activation: 'relu' }, caps, { rtol: 1e-4, atol: 1e-4, plan: (s, c) => matmulPlanWith(s, c, cfg) });
    });

    it.each([[false, false], [true, false], [false, true], [true, true]])('the skinny split-K kernel for small M (transA=%s transB=%s)', async (transA, transB) => {
      const caps = await getCaps();
      for (const [m, n, k] of [[1, 10, 3], [3, 70, 129], [32, 40, 200], [6, 5, 1]] as [number, number, number][]) {
        await check('matmul', [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }], { transA, transB }, caps, { rtol: 1e-4, atol: 1e-4 });
        await check('fusedMatmul', [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }, { shape: [m, 1] }], { transA, transB, bias: true, activation: 'relu' }, caps, { rtol: 1e-4, atol: 1e-4 });
      }
    });

    it.each([[false, false], [true, false], [false, true], [true, true]])('split-K for a long K over few tiles, with a bias and relu epilogue (transA=%s transB=%s)', async (transA, transB) => {
      const caps = await getCaps();
      for (const [m, n, k] of [[96, 40, 2100], [72, 9, 2048]] as [number, number, number][]) {
        const split = chooseSplitK(m, n, k, 1, caps);
        expect(split?.splits).toBeGreaterThan(1);
        await check('matmul', [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }], { transA, transB }, caps, { rtol: 1e-4, atol: 1e-4 });
        await check('fusedMatmul', [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }, { shape: [n] }], { transA, transB, bias: true, activation: 'relu' }, caps, { rtol: 1e-4, atol: 1e-4 });
      }
    });

    it.each([[false, false], [true, false], [false, true], [true, true]])('matmulPartials: the split-K partial products, each chunk of K summed into its own slice (transA=%s transB=%s)', async (transA, transB) => {
      const caps = await getCaps();
      // S = 3 over K = 300 (chunks 112, 112, 76), S = 4 over K = 520 with scalar stores, and ir's own split of a
      // weight-gradient-like shape
      const S = matmulSplitK(24, 16, 1024, 1, caps.maxStorageBufferBindingSize);
      expect(S).toBeGreaterThan(1);
      for (const [m, n, k, splits] of [[20, 12, 300, 3], [33, 9, 520, 4], [24, 16, 1024, S]] as [number, number, number, number][])
        await check('matmulPartials', [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }], { transA, transB, splits }, caps, { rtol: 1e-4, atol: 1e-4 });
    });

    it.each([[false, false], [true, false], [false, true], [true, true]])('matmulEpilogue: a pointwise DAG of the product and extra operands on every plan (transA=%s transB=%s)', async (transA, transB) => {
      const caps = await getCaps();
      const $ = (index: number): PwExpr => ({ op: 'in', index });
      // GELU(product + bias) + residual · scale: a bias [n], a residual [m, n] and a scalar (6 bindings); under
      // 4 storage buffers, GELU(product + bias) alone
      const wide = caps.maxStorageBuffersPerShaderStage >= 6;
      const gelu: PwExpr = { op: 'geluTanh', a: { op: 'add', a: $(0), b: $(1) } };
      const expr: PwExpr = wide ? { op: 'add', a: gelu, b: { op: 'mul', a: $(2), b: $(3) } } : gelu;
      const attrs = { transA, transB, expr };
      const ops = (m: number, n: number, k: number): Operand[] => [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }, { shape: [n] }, ...(wide ? [{ shape: [m, n] }, { shape: [] }] : [])];
      const tol = { rtol: 1e-4, atol: 1e-4 };
      for (const [m, n, k] of [[36, 44, 20], [33, 17, 65]] as [number, number, number][]) {
        await check('matmulEpilogue', ops(m, n, k), attrs, caps, tol); // tiled, vec4 and scalar stores
        for (const cfg of MATMUL_CONFIGS.filter((c) => matmulConfigFits(c, caps)).slice(0, 2)) await check('matmulEpilogue', ops(m, n, k), attrs, caps, { ...tol, plan: (s, c) => matmulPlanWith(s, c, cfg) });
      }
      await check('matmulEpilogue', ops(3, 70, 129), attrs, caps, tol); // skinny
      expect(chooseSplitK(96, 40, 2100, 1, caps)?.splits).toBeGreaterThan(1);
      await check('matmulEpilogue', ops(96, 40, 2100), attrs, caps, { rtol: 1e-4, atol: 1e-3 }); // split-K: the epilogue in the reduction pass
      await check('matmulEpilogue', ops(72, 9, 2048), attrs, caps, { rtol: 1e-4, atol: 1e-3 }); // split-K, scalar
      if (!wide) return;
      // batched, an extra broadcast over the batch and one that is not, plus an i32 operand through a cast
      const masked: PwExpr = { op: 'mul', a: { op: 'add', a: $(0), b: $(1) }, b: { op: 'cast', to: 'f32', a: { op: 'gt', a: $(2), b: { op: 'const', value: 0 } } } };
      await check('matmulEpilogue', [{ shape: transA ? [2, 5, 9] : [2, 9, 5] }, { shape: transB ? [2, 6, 5] : [2, 5, 6] }, { shape: [9, 6] }, { shape: [2, 1, 6], dtype: 'i32' }], { transA, transB, expr: masked }, caps, tol);
    });

    it('multiplies a matrix by its own transpose through one binding', async () => {
      const caps = await getCaps();
      await check('matmul', [{ shape: [6, 5] }, { shape: [6, 5], same: 0 }], { transA: false, transB: true }, caps, { rtol: 1e-4, atol: 1e-4 });
      await check('matmul', [{ shape: [40, 36] }, { shape: [40, 36], same: 0 }], { transA: true, transB: false }, caps, { rtol: 1e-4, atol: 1e-4 });
    });
  });

  describe('reductions', () => {
    const cases: [Shape, number[], boolean][] = [
      [[32, 128], [0], false], // columns path
      [[5, 300], [1], true], // rows path
      [[7, 9], [1], false], // short rows: general
      [[2, 3, 4, 5], [1, 3], true], // general, two reduced groups
      [[4, 70, 3], [1], false], // middle axis
      [[200], [0], false], // all axes, rows path
      [[3, 5], [0, 1], true],
      [[6], [], false], // nothing reduced
      [[3, 4, 5, 7], [0, 2, 3], true], // outer-kept-inner (per-channel statistics of NCHW), two passes
      [[2, 3, 40], [0, 2], false], // outer-kept-inner
    ];
    it.each([['sum'], ['mean'], ['reduceMax'], ['reduceMin']] as const)('%s over any axes', async (op) => {
      const caps = await getCaps();
      for (const [shape, axes, keepdims] of cases) await check(op, [{ shape }], { axes, keepdims }, caps, { rtol: 1e-5, atol: 1e-4 });
    });

    it.each([['sum'], ['mean'], ['reduceMax'], ['reduceMin']] as const)('%s splits long reductions with few outputs into two passes', async (op) => {
      const caps = await getCaps();
      const big: [Shape, number[]][] = [[[1_000_000], [0]], [[3, 9000], [1]], [[2000, 5], [0]], [[70000, 3], [0]], [[5, 4, 300], [0, 1]], [[1000, 12], [0]], [[67, 8], [0]], [[2, 50, 16], [0, 1]]];
      for (const [shape, axes] of big) {
        const g = new Graph();
        const plan = generateKernel({ node: g.node(op, [g.input('x', shape)], { axes, keepdims: false }), inputs: [{ shape, dtype: 'f32' }] }, caps);
        if (numel(shape) >= 10000) expect(plan.dispatches).toHaveLength(2);
        await check(op, [{ shape }], { axes, keepdims: false }, caps, { rtol: 1e-4, atol: op === 'sum' ? 2e-2 : 1e-4 });
      }
    });

    // long columns wide enough for COLUMN_STRIP-column strips (ir's columnsPath): one pass, a workgroup per strip
    // walking every row; rows not a multiple of the row lanes or the unroll, odd widths (scalar lanes), a partial
    // last strip, merged leading axes
    it.each([['sum'], ['mean'], ['reduceMax'], ['reduceMin']] as const)('%s over long columns runs one strips pass', async (op) => {
      const caps = await getCaps();
      const strips: [Shape, number[]][] = [[[67, 264], [0]], [[70, 257], [0]], [[3, 41, 260], [0, 1]], [[129, 300], [0]]];
      for (const [shape, axes] of strips) {
        const g = new Graph();
        const plan = generateKernel({ node: g.node(op, [g.input('x', shape)], { axes, keepdims: false }), inputs: [{ shape, dtype: 'f32' }] }, caps);
        expect(plan.dispatches.map((d) => d.label), `${op} over ${axes} of [${shape}]`).toEqual([expect.not.stringContaining(':')]);
        expect(columnsPath(shape, axes)).toBe('strips');
        const tol = { rtol: 1e-4, atol: op === 'sum' ? 1e-3 : 1e-4 };
        await check(op, [{ shape }], { axes, keepdims: false }, caps, tol);
        // the other geometries and the two-pass form the bench times against it, at the same shapes
        for (const columns of [{ strips: { strip: 16, threads: 128 } }, { strips: { strip: 4, threads: 64 } }, { form: 'split' as const }])
          await check(op, [{ shape }], { axes, keepdims: false }, caps, { ...tol, plan: (sp, c) => reduceKernel(sp, c, columns) });
      }
    });
  });

  describe('pointwiseReduce (a reduction with a pointwise prologue and epilogue)', () => {
    const $ = (index: number): PwExpr => ({ op: 'in', index });
    const k = (value: number): PwExpr => ({ op: 'const', value });
    // layer norm's variance: mean((x - mean)²), the mean broadcast along the reduced axis
    const centredSquare: PwExpr = { op: 'square', a: { op: 'sub', a: $(0), b: $(1) } };
    const rstd: PwExpr = { op: 'rsqrt', a: { op: 'add', a: $(0), b: k(1e-5) } };
    const id: PwExpr = $(0);
    // each path of reduce.ts, the prologue reading a full operand and one broadcast along the reduced or kept axes
    const cases: { shape: Shape; axes: number[]; other: Shape; keepdims: boolean; n: number }[] = [
      { shape: [5, 300], axes: [1], other: [5, 1], keepdims: true, n: 1 }, // rows
      { shape: [3, 9000], axes: [1], other: [3, 1], keepdims: false, n: 2 }, // split rows
      { shape: [200, 12], axes: [0], other: [12], keepdims: false, n: 2 }, // split columns
      { shape: [70, 7], axes: [0], other: [1, 7], keepdims: true, n: 2 }, // split columns, odd width (scalar loads)
      { shape: [67, 264], axes: [0], other: [264], keepdims: false, n: 1 }, // column strips
      { shape: [70, 257], axes: [0], other: [1, 257], keepdims: true, n: 1 }, // column strips, odd width
      { shape: [3, 4, 70], axes: [0, 2], other: [4, 1], keepdims: false, n: 2 }, // outer-kept-inner
      { shape: [7, 9], axes: [1], other: [7, 1], keepdims: false, n: 1 }, // short rows: general
      { shape: [2, 3, 4, 5], axes: [1, 3], other: [2, 1, 4, 1], keepdims: true, n: 1 }, // general, two groups
      { shape: [20, 6], axes: [0], other: [6], keepdims: false, n: 1 }, // short columns
    ];
    it.each([['sum'], ['mean'], ['reduceMax'], ['reduceMin']] as const)('%s of a prologue, with and without an epilogue, on every path', async (reduce) => {
      const caps = await getCaps();
      for (const c of cases) {
        for (const post of [id, rstd]) {
          const p = reduce === 'mean' || reduce === 'sum' ? post : id;
          const attrs = { expr: centredSquare, shape: [...c.shape], reduce, axes: c.axes, keepdims: c.keepdims, post: p };
          const g = new Graph();
          const plan = generateKernel({ node: g.node('pointwiseReduce', [g.input('x', c.shape), g.input('m', c.other)], attrs), inputs: [{ shape: c.shape, dtype: 'f32' }, { shape: c.other, dtype: 'f32' }] }, caps);
          expect(plan.dispatches, `${reduce} over ${c.axes} of [${c.shape}]`).toHaveLength(c.n);
          await check('pointwiseReduce', [{ shape: c.shape }, { shape: c.other }], attrs, caps, { rtol: 1e-4, atol: reduce === 'sum' ? 1e-2 : 1e-4 });
        }
      }
    });
    it('an i32 operand, a repeated operand and constants in the prologue (bias gradient of a masked product)', async () => {
      const caps = await getCaps();
      const expr: PwExpr = { op: 'mul', a: { op: 'mul', a: $(0), b: { op: 'cast', to: 'f32', a: { op: 'gt', a: $(1), b: k(0) } } }, b: { op: 'add', a: $(0), b: k(0.5) } };
      await check('pointwiseReduce', [{ shape: [66, 8] }, { shape: [66, 8], dtype: 'i32' }], { expr, shape: [66, 8], reduce: 'sum', axes: [0], keepdims: false, post: { op: 'neg', a: $(0) } }, caps, { rtol: 1e-4, atol: 1e-3 });
    });
  });

  describe('rowwise (row statistics, then a per-element expression: norms and their gradients in one kernel)', () => {
    const $ = (index: number): PwExpr => ({ op: 'in', index });
    const k = (value: number): PwExpr => ({ op: 'const', value });
    const bin = (op: 'add' | 'sub' | 'mul' | 'div', a: PwExpr, b: PwExpr): PwExpr => ({ op, a, b });
    const id: PwExpr = $(0);
    const rstd: PwExpr = { op: 'rsqrt', a: bin('add', $(0), k(1e-5)) };
    // operands x [R, C], g [R, C], w [C]; stats from $3 on
    const mean = (expr: PwExpr, post = id): RowStat => ({ expr, reduce: 'mean', post });
    const layerNorm = { expr: bin('mul', bin('mul', bin('sub', $(0), $(3)), $(4)), $(2)), stats: [mean($(0)), mean({ op: 'square', a: bin('sub', $(0), $(3)) }, rstd)] };
    const xhat = bin('mul', bin('sub', $(0), $(3)), $(4));
    const gw = bin('mul', $(1), $(2));
    const layerNormGrad = {
      expr: bin('mul', $(4), bin('sub', bin('sub', gw, $(5)), bin('mul', xhat, $(6)))),
      stats: [mean($(0)), mean({ op: 'square', a: bin('sub', $(0), $(3)) }, rstd), mean(gw), mean(bin('mul', gw, xhat))],
    };
    const softmax = { expr: bin('div', { op: 'exp', a: bin('sub', $(0), $(3)) }, $(4)), stats: [{ expr: $(0), reduce: 'reduceMax', post: id } as RowStat, { expr: { op: 'exp', a: bin('sub', $(0), $(3)) }, reduce: 'sum', post: id } as RowStat] };
    const rmsNorm = { expr: bin('mul', bin('mul', $(0), $(3)), $(2)), stats: [mean({ op: 'square', a: $(0) }, rstd), { expr: $(1), reduce: 'reduceMin', post: id } as RowStat] };
    it.each([[7], [64], [384], [1000]])('layer norm, its dx, softmax and an RMS norm over rows of %i', async (c) => {
      const caps = await getCaps();
      const ops = (rows: number[]): Operand[] => [{ shape: [...rows, c] }, { shape: [...rows, c] }, { shape: [c] }];
      for (const attrs of [layerNorm, layerNormGrad, softmax, rmsNorm]) {
        await check('rowwise', ops([5]), attrs, caps, { rtol: 1e-4, atol: 1e-4 });
        await check('rowwise', ops([2, 3]), attrs, caps, { rtol: 1e-4, atol: 1e-4 });
      }
    });
    it('an operand broadcast along the rows ([R, 1]) and an i32 operand', async () => {
      const caps = await getCaps();
      const expr = bin('mul', bin('sub', $(0), $(3)), { op: 'cast', to: 'f32', a: { op: 'gt', a: $(2), b: k(0) } });
      await check('rowwise', [{ shape: [9, 33] }, { shape: [9, 1] }, { shape: [9, 33], dtype: 'i32' }], { expr, stats: [mean(bin('mul', $(0), $(1)))] }, caps, { rtol: 1e-4, atol: 1e-4 });
    });
  });

  describe('softmax and losses', () => {
    const rows: [number, number][] = [[1, 10], [5, 7], [3, 300], [17, 33], [4, 1]];
    it('logSoftmax and logSoftmaxGrad over the last axis', async () => {
      const caps = await getCaps();
      for (const [n, c] of rows) {
        await check('logSoftmax', [{ shape: [n, c] }], { axis: 1 }, caps, { rtol: 1e-5, atol: 1e-5 });
        await check('logSoftmaxGrad', [{ shape: [n, c] }, { shape: [n, c] }], { axis: 1 }, caps, { rtol: 1e-4, atol: 1e-5 });
      }
      await check('logSoftmax', [{ shape: [2, 3, 5] }], { axis: 2 }, caps, { rtol: 1e-5, atol: 1e-5 });
    });

    it.each([['mean'], ['sum']] as const)('softmaxCrossEntropy, its gradient, nll and nllGrad (%s)', async (reduction) => {
      const caps = await getCaps();
      for (const [n, c] of rows) {
        const labels: Operand = { shape: [n], dtype: 'i32', gen: 'labels', classes: c };
        await check('softmaxCrossEntropy', [{ shape: [n, c] }, labels], { reduction }, caps, { rtol: 1e-5, atol: 1e-5 });
        await check('softmaxCrossEntropyGrad', [{ shape: [n, c] }, labels, { shape: [] }], { reduction }, caps, { rtol: 1e-5, atol: 1e-6 });
        await check('nll', [{ shape: [n, c] }, labels], { reduction }, caps, { rtol: 1e-5, atol: 1e-5 });
        await check('nllGrad', [labels, { shape: [] }], { reduction, classes: c }, caps, { rtol: 1e-6, atol: 1e-7 });
      }
    });
  });

  describe('batched matmul', () => {
    it('broadcasts batch axes through grid z, tiled and skinny, with a broadcast bias', async () => {
      const caps = await getCaps();
      await check('matmul', [{ shape: [3, 5, 7] }, { shape: [3, 7, 4] }], { transA: false, transB: false }, caps, { rtol: 1e-4, atol: 1e-4 });
      await check('matmul', [{ shape: [2, 1, 70, 36] }, { shape: [3, 36, 40] }], { transA: false, transB: false }, caps, { rtol: 1e-4, atol: 1e-4 });
      await check('matmul', [{ shape: [2, 3, 9, 6] }, { shape: [2, 3, 11, 9] }], { transA: true, transB: true }, caps, { rtol: 1e-4, atol: 1e-4 });
      await check('matmul', [{ shape: [2, 8, 16] }, { shape: [16, 12] }], { transA: false, transB: false }, caps, { rtol: 1e-4, atol: 1e-4 });
      await check('matmul', [{ shape: [4, 16, 8] }, { shape: [4, 12, 8] }], { transA: false, transB: true }, caps, { rtol: 1e-4, atol: 1e-4 });
      await check('fusedMatmul', [{ shape: [2, 66, 20] }, { shape: [20, 68] }, { shape: [2, 1, 68] }], { transA: false, transB: false, bias: true, activation: 'relu' }, caps, { rtol: 1e-4, atol: 1e-4 });
      await check('fusedMatmul', [{ shape: [3, 5, 20] }, { shape: [3, 20, 7] }, { shape: [7] }], { transA: false, transB: false, bias: true, activation: 'none' }, caps, { rtol: 1e-4, atol: 1e-4 });
    });
  });

  describe('indexing', () => {
    it('slice takes strided windows', async () => {
      const caps = await getCaps();
      await check('slice', [{ shape: [7, 9] }], { starts: [1, 0], ends: [6, 9], steps: [2, 3] }, caps);
      await check('slice', [{ shape: [2, 5, 4], dtype: 'i32' }], { starts: [0, 2, 1], ends: [2, 5, 3], steps: [1, 1, 1] }, caps);
    });

    it('pad places x with edge and interior padding and a fill value', async () => {
      const caps = await getCaps();
      await check('pad', [{ shape: [3, 4] }], { before: [1, 0], after: [2, 3], interior: [0, 1], value: 0.5 }, caps);
      await check('pad', [{ shape: [2, 3] }], { before: [0, 2], after: [0, 0], interior: [2, 0], value: -Infinity }, caps, { exact: true });
      await check('pad', [{ shape: [4], dtype: 'i32' }], { before: [3], after: [1], interior: [0], value: 7 }, caps);
    });

    it('concat joins along an axis, across several dispatches past the storage-buffer limit', async () => {
      const caps = await getCaps();
      await check('concat', [{ shape: [2, 3] }, { shape: [2, 5] }, { shape: [2, 1] }], { axis: 1 }, caps);
      await check('concat', [{ shape: [1, 4] }, { shape: [3, 4] }, { shape: [1, 4], same: 0 }], { axis: 0 }, caps);
      const five: Operand[] = [[2, 2, 3], [2, 1, 3], [2, 4, 3], [2, 2, 3], [2, 3, 3]].map((shape) => ({ shape, dtype: 'i32' as DType }));
      await check('concat', five, { axis: 1 }, { ...caps, maxStorageBuffersPerShaderStage: 4 });
    });

    it('gather takes rows by index and oneHot makes rows from labels', async () => {
      const caps = await getCaps();
      await check('gather', [{ shape: [10, 6] }, { shape: [3, 4], dtype: 'i32', gen: 'labels', classes: 10 }], { axis: 0 }, caps);
      await check('gather', [{ shape: [2, 5, 3] }, { shape: [7], dtype: 'i32', gen: 'labels', classes: 5 }], { axis: 1 }, caps);
      await check('oneHot', [{ shape: [2, 5], dtype: 'i32', gen: 'labels', classes: 7 }], { classes: 7 }, caps);
    });

    it('scatterAdd accumulates repeated indices, gather-style, segmented (two passes) and with compare-exchange atomics', async () => {
      const caps = await getCaps();
      await check('scatterAdd', [{ shape: [6, 4] }, { shape: [9], dtype: 'i32', gen: 'labels', classes: 6 }, { shape: [9, 4] }], { axis: 0 }, caps);
      await check('scatterAdd', [{ shape: [2, 5, 3] }, { shape: [2, 4], dtype: 'i32', gen: 'labels', classes: 5 }, { shape: [2, 2, 4, 3] }], { axis: 1 }, caps);
      // many indices into few rows: segmented (a partial last chunk; outer 2 and 70 columns: two column blocks)
      const planOf = (t: Shape, i: Shape, u: Shape, axis: number) => {
        const g = new Graph();
        const node = g.node('scatterAdd', [g.input('t', t), g.input('i', i, 'i32'), g.input('u', u)], { axis });
        return generateKernel({ node, inputs: [{ shape: t, dtype: 'f32' }, { shape: i, dtype: 'i32' }, { shape: u, dtype: 'f32' }] }, caps);
      };
      expect(planOf([7, 5], [600], [600, 5], 0).dispatches.map((d) => d.label.split(':')[1].replace(']', ''))).toEqual(['partials', 'combine']);
      await check('scatterAdd', [{ shape: [7, 5] }, { shape: [600], dtype: 'i32', gen: 'labels', classes: 7 }, { shape: [600, 5] }], { axis: 0 }, caps, { rtol: 1e-4, atol: 1e-4 });
      await check('scatterAdd', [{ shape: [2, 5, 70] }, { shape: [300], dtype: 'i32', gen: 'labels', classes: 5 }, { shape: [2, 300, 70] }], { axis: 1 }, caps, { rtol: 1e-4, atol: 1e-4 });
      // too many rows for the sums in workgroup memory: compare-exchange atomics
      expect(planOf([600, 2], [700], [700, 2], 0).dispatches.map((d) => d.label.split(':')[1].replace(']', ''))).toEqual(['copy', 'add']);
      await check('scatterAdd', [{ shape: [600, 2] }, { shape: [700], dtype: 'i32', gen: 'labels', classes: 600 }, { shape: [700, 2] }], { axis: 0 }, caps, { rtol: 1e-4, atol: 1e-4 });
    });

    it('argmax finds the first maximum and stopGradient copies', async () => {
      const caps = await getCaps();
      await check('argmax', [{ shape: [5, 9] }], { axis: 1, keepdims: false }, caps);
      await check('argmax', [{ shape: [4, 6, 3] }], { axis: 1, keepdims: true }, caps);
      await check('argmax', [{ shape: [20], gen: 'small-int' }], { axis: 0, keepdims: false }, caps);
      await check('stopGradient', [{ shape: [3, 7] }], E, caps);
    });

    it('cumsum scans rows in the order the interpreter sums (bit for bit), along any axis, either way', async () => {
      const caps = await getCaps();
      for (const reverse of [false, true]) {
        await check('cumsum', [{ shape: [5, 9] }], { axis: 1, reverse }, caps, { exact: true });
        await check('cumsum', [{ shape: [3, 7, 5] }], { axis: 1, reverse }, caps, { exact: true }); // axis not last
        await check('cumsum', [{ shape: [13, 3] }], { axis: 0, reverse }, caps, { exact: true });
        await check('cumsum', [{ shape: [131] }], { axis: 0, reverse }, caps, { exact: true }); // one long row
        await check('cumsum', [{ shape: [2, 1, 3] }], { axis: 1, reverse }, caps, { exact: true }); // extent 1
        await check('cumsum', [{ shape: [4, 11], dtype: 'i32' }], { axis: 1, reverse }, caps, { exact: true });
      }
    });
  });

  describe('attention, rope and dropout', () => {
    const shapes: [number[], number, number, number][] = [[[2], 5, 7, 4], [[2, 3], 9, 9, 8], [[1], 70, 66, 5], [[3], 4, 1, 3]];
    it.each([[false], [true]])('attention matches the interpreter (causal=%s)', async (causal) => {
      const caps = await getCaps();
      for (const [lead, tq, tk, d] of shapes)
        await check('attention', [{ shape: [...lead, tq, d] }, { shape: [...lead, tk, d] }, { shape: [...lead, tk, d + 1] }], { causal, scale: 1 / Math.sqrt(d) }, caps, { rtol: 1e-4, atol: 1e-5 });
    });

    it.each([[false], [true]])('attentionLse matches the interpreter (causal=%s)', async (causal) => {
      const caps = await getCaps();
      for (const [lead, tq, tk, d] of shapes) await check('attentionLse', [{ shape: [...lead, tq, d] }, { shape: [...lead, tk, d] }], { causal, scale: 1 / Math.sqrt(d) }, caps, { rtol: 1e-4, atol: 1e-5 });
    });

    /** attentionGrad's operands: q, k, v, dOut, then L and Δ per query row (any values: the op is defined from them). */
    const gradOperands = (lead: number[], tq: number, tk: number, d: number, dv: number): Operand[] => [
      { shape: [...lead, tq, d] },
      { shape: [...lead, tk, d] },
      { shape: [...lead, tk, dv] },
      { shape: [...lead, tq, dv] },
      { shape: [...lead, tq] },
      { shape: [...lead, tq] },
    ];

    it.each([['q'], ['k'], ['v']] as const)('attentionGrad wrt %s matches the interpreter, causal and not', async (wrt) => {
      const caps = await getCaps();
      for (const causal of [false, true])
        for (const [lead, tq, tk, d] of shapes) {
          const ops = gradOperands(lead, tq, tk, d, d + 1);
          if (caps.maxStorageBuffersPerShaderStage < 7) {
            const g = new Graph();
            const node = g.node('attentionGrad', ops.map((o, i) => g.input(`x${i}`, o.shape)), { causal, scale: 0.25, wrt });
            expect(() => generateKernel({ node, inputs: ops.map((o) => ({ shape: o.shape, dtype: 'f32' })) }, caps)).toThrow(/maxStorageBuffersPerShaderStage/);
          } else await check('attentionGrad', ops, { causal, scale: 0.25, wrt }, caps, { rtol: 1e-3, atol: 1e-4 });
        }
    });

    // D and Dv multiples of 4: the flash kernels (several key/query tiles, ragged last tiles, Tq ≠ Tk)
    const flashShapes: [number[], number, number, number, number][] = [[[2], 5, 7, 4, 8], [[2, 3], 9, 9, 8, 8], [[1], 70, 66, 12, 4], [[3], 4, 1, 4, 4], [[1], 130, 130, 16, 16]];
    it.each([[false], [true]])('flash attention matches the interpreter (causal=%s)', async (causal) => {
      const caps = await getCaps();
      for (const [lead, tq, tk, d, dv] of flashShapes)
        await check('attention', [{ shape: [...lead, tq, d] }, { shape: [...lead, tk, d] }, { shape: [...lead, tk, dv] }], { causal, scale: 1 / Math.sqrt(d) }, caps, { rtol: 1e-4, atol: 1e-5 });
    });

    // result 0 only (the harness binds one output buffer; both results are checked through compile in
    // runtime-webgpu's attentionMultiResult.gpu.test.ts)
    it.each([[false], [true]])('attentionWithLse writes attention as its result 0, flash and simple (causal=%s)', async (causal) => {
      const caps = await getCaps();
      const plan = (spec: KernelSpec<'attentionWithLse'>, c: DeviceCaps) => attentionWithLseKernel({ ...spec, results: ['buffer', 'unused'] }, c);
      for (const [lead, tq, tk, d, dv] of [...flashShapes.slice(0, 3), [[2], 9, 5, 5, 3] as [number[], number, number, number, number]])
        await check('attentionWithLse', [{ shape: [...lead, tq, d] }, { shape: [...lead, tk, d] }, { shape: [...lead, tk, dv] }], { causal, scale: 0.4 }, caps, { rtol: 1e-4, atol: 1e-5, plan });
    });

    it.each([[false], [true]])('flash attentionLse matches the interpreter (causal=%s)', async (causal) => {
      const caps = await getCaps();
      for (const [lead, tq, tk, d] of flashShapes) await check('attentionLse', [{ shape: [...lead, tq, d] }, { shape: [...lead, tk, d] }], { causal, scale: 1 / Math.sqrt(d) }, caps, { rtol: 1e-4, atol: 1e-5 });
    });

    it.each([['q'], ['k'], ['v']] as const)('flash attentionGrad wrt %s matches the interpreter, causal and not', async (wrt) => {
      const caps = await getCaps();
      if (caps.maxStorageBuffersPerShaderStage < 7) return; // the simple kernels' test above checks the refusal
      for (const causal of [false, true])
        for (const [lead, tq, tk, d, dv] of flashShapes) await check('attentionGrad', gradOperands(lead, tq, tk, d, dv), { causal, scale: 0.25, wrt }, caps, { rtol: 1e-3, atol: 1e-4 });
    });

    // result 0 (dk) only: the harness binds one output buffer; the fused dk + dv pass is checked through compile in
    // runtime-webgpu's attentionMultiResult.gpu.test.ts
    it.each([[false], [true]])('attentionGradKV writes dk as its result 0, flash and simple (causal=%s)', async (causal) => {
      const caps = await getCaps();
      if (caps.maxStorageBuffersPerShaderStage < 7) return; // attentionGrad's test above checks the refusal
      const plan = (spec: KernelSpec<'attentionGradKV'>, c: DeviceCaps) => attentionGradKVKernel({ ...spec, results: ['buffer', 'unused'] }, c);
      for (const [lead, tq, tk, d] of [...flashShapes.slice(0, 3), [[2], 9, 5, 5, 5] as [number[], number, number, number, number]])
        await check('attentionGradKV', gradOperands(lead, tq, tk, d, d), { causal, scale: 0.25 }, caps, { rtol: 1e-3, atol: 1e-4, plan });
    });

    // seq-major ([B, T, H, D], lse and delta [B, T, H]): the flash kernels only; odd head sizes are refused
    it.each([[false], [true]])('flash kernels in the seq-major layout match the interpreter (causal=%s)', async (causal) => {
      const caps = await getCaps();
      const attrs = { causal, scale: 0.3, seqMajor: true };
      for (const [b, tq, tk, h, d, dv] of [[2, 37, 41, 3, 8, 4], [1, 70, 66, 2, 16, 16], [3, 5, 5, 1, 4, 8]]) {
        const ops: Operand[] = [{ shape: [b, tq, h, d] }, { shape: [b, tk, h, d] }, { shape: [b, tk, h, dv] }, { shape: [b, tq, h, dv] }, { shape: [b, tq, h] }, { shape: [b, tq, h] }];
        await check('attention', ops.slice(0, 3), attrs, caps, { rtol: 1e-4, atol: 1e-5 });
        await check('attentionLse', ops.slice(0, 2), attrs, caps, { rtol: 1e-4, atol: 1e-5 });
        await check('attentionWithLse', ops.slice(0, 3), attrs, caps, { rtol: 1e-4, atol: 1e-5, plan: (spec: KernelSpec<'attentionWithLse'>, c: DeviceCaps) => attentionWithLseKernel({ ...spec, results: ['buffer', 'unused'] }, c) });
        if (caps.maxStorageBuffersPerShaderStage < 7) continue;
        for (const wrt of ['q', 'k', 'v'] as const) await check('attentionGrad', ops, { ...attrs, wrt }, caps, { rtol: 1e-3, atol: 1e-4 });
      }
      const g = new Graph();
      const q = g.input('q', [1, 4, 2, 6]);
      const node = g.node('attention', [q, q, q], attrs);
      expect(() => generateKernel({ node, inputs: [{ shape: q.shape, dtype: 'f32' }, { shape: q.shape, dtype: 'f32' }, { shape: q.shape, dtype: 'f32' }] }, caps)).toThrow(/seq-major.*flash/);
    });

    // head windows (`window`): q, k, v read in place from one fused [B, T, W, D] tensor (bound three times) or from
    // separate wider tensors at other offsets; every forward and gradient kernel, rows, tiled and matmul-style
    it('flash kernels reading q, k, v as head windows of wider tensors match the interpreter', async () => {
      const caps = await getCaps();
      const cfgs: FlashConfig[] = [{ rows: 64, tile: 16, grad: 'rows' }, { rows: 64, tile: 16, grad: 'tiled' }, { rows: 64, tile: 16, grad: 'gemm' }];
      for (const [b, t, h, d, causal] of [[2, 37, 3, 8, true], [1, 21, 2, 16, false]] as const) {
        const fused: Operand[] = [{ shape: [b, t, 3 * h, d] }, { shape: [b, t, 3 * h, d], same: 0 }, { shape: [b, t, 3 * h, d], same: 0 }];
        const apart: Operand[] = [{ shape: [b, t, h + 2, d] }, { shape: [b, t, h, d] }, { shape: [b, t, 2 * h + 1, d] }];
        const rest: Operand[] = [{ shape: [b, t, h, d] }, { shape: [b, t, h] }, { shape: [b, t, h] }];
        for (const [qkv, offsets] of [[fused, [0, h, 2 * h]], [apart, [2, 0, h + 1]]] as const) {
          const attrs = { causal, scale: 0.3, seqMajor: true, window: { heads: h, offsets: [...offsets] } };
          await check('attention', qkv, attrs, caps, { rtol: 1e-4, atol: 1e-5 });
          await check('attentionLse', qkv.slice(0, 2), { ...attrs, window: { heads: h, offsets: [offsets[0], offsets[1], 0] } }, caps, { rtol: 1e-4, atol: 1e-5 });
          await check('attentionWithLse', qkv, attrs, caps, { rtol: 1e-4, atol: 1e-5, plan: (spec: KernelSpec<'attentionWithLse'>, c: DeviceCaps) => attentionWithLseKernel({ ...spec, results: ['buffer', 'unused'] }, c) });
          if (caps.maxStorageBuffersPerShaderStage < 7) continue;
          for (const cfg of cfgs) {
            for (const wrt of ['q', 'k', 'v'] as const) await check('attentionGrad', [...qkv, ...rest], { ...attrs, wrt }, caps, { rtol: 1e-3, atol: 1e-4, plan: (s, c) => flashAttentionGradPlan(s, c, cfg) });
            const plan = (s: KernelSpec<'attentionGradKV'>, c: DeviceCaps) => flashAttentionGradKVPlan({ ...s, results: ['buffer', 'unused'] }, c, ['k'], cfg);
            await check('attentionGradKV', [...qkv, ...rest], attrs, caps, { rtol: 1e-3, atol: 1e-4, plan });
          }
        }
      }
    });

    // attentionGradQKV: the dq pass and the dk + dv pass writing one [B, T, 3H, D] result at their head windows, rows
    // and tiled, Δ given and from the output, from separate q, k, v and from head windows of one fused tensor
    it('attentionGradQKV writes dq, dk and dv into one result matching the interpreter', async () => {
      const caps = await getCaps();
      if (caps.maxStorageBuffersPerShaderStage < 7) return;
      const cfgs: (FlashConfig | undefined)[] = [undefined, { rows: 64, tile: 16, grad: 'rows' }, { rows: 64, tile: 16, grad: 'tiled' }];
      for (const [b, t, h, d, causal] of [[2, 37, 3, 8, true], [1, 21, 2, 16, false]] as const) {
        const one = { shape: [b, t, h, d] };
        const fused: Operand[] = [{ shape: [b, t, 3 * h, d] }, { shape: [b, t, 3 * h, d], same: 0 }, { shape: [b, t, 3 * h, d], same: 0 }];
        for (const deltaFromOut of [true, false]) {
          // L ≥ 0.1 and a small scale keep P = exp(s − L) near its real range: with arbitrary L, dq is a difference of
          // terms in the thousands and its f32 rounding exceeds the tolerance (a data artefact, not the layout)
          const rest: Operand[] = [one, { shape: [b, t, h], gen: 'positive' }, deltaFromOut ? one : { shape: [b, t, h] }];
          for (const [qkv, window] of [[[one, one, one], undefined], [fused, { heads: h, offsets: [0, h, 2 * h] }]] as const) {
            const attrs = { causal, scale: 0.125, seqMajor: true, ...(deltaFromOut ? { deltaFromOut } : {}), ...(window ? { window: { ...window, offsets: [...window.offsets] } } : {}) };
            for (const cfg of cfgs)
              await check('attentionGradQKV', [...qkv, ...rest], attrs, caps, { rtol: 1e-3, atol: 1e-4, ...(cfg ? { plan: (s: KernelSpec<'attentionGradQKV'>, c: DeviceCaps) => flashAttentionGradQKVPlan(s, c, cfg) } : {}) });
          }
        }
      }
    });

    it('flash attention variants (rows per workgroup, tile rows) agree with the interpreter', async () => {
      const caps = await getCaps();
      const lead = [2];
      const [tq, tk, d] = [70, 70, 8];
      const ops = gradOperands(lead, tq, tk, d, d);
      for (const cfg of [{ rows: 32, tile: 8 }, { rows: 128, tile: 64 }, { rows: 16, tile: 4 }]) {
        await check('attention', ops.slice(0, 3), { causal: true, scale: 0.3 }, caps, { rtol: 1e-4, atol: 1e-5, plan: (s, c) => flashAttentionPlan(s, c, cfg) });
        await check('attentionLse', ops.slice(0, 2), { causal: true, scale: 0.3 }, caps, { rtol: 1e-4, atol: 1e-5, plan: (s, c) => flashAttentionLsePlan(s, c, cfg) });
        if (caps.maxStorageBuffersPerShaderStage >= 7)
          for (const wrt of ['q', 'k', 'v'] as const)
            await check('attentionGrad', ops, { causal: true, scale: 0.3, wrt }, caps, { rtol: 1e-3, atol: 1e-4, plan: (s, c) => flashAttentionGradPlan(s, c, cfg) });
      }
    });

    // the tiled gradients (flashAttentionTiledGrad.ts) in each shape and the row kernels they replace, each forced,
    // on shapes with ragged anchor blocks and partner tiles, Tq ≠ Tk, column lanes past D (D = 8) and two columns a
    // lane (D = 64 with 64 threads), heads-major and seq-major
    it('tiled and row flash gradients agree with the interpreter', async () => {
      const caps = await getCaps();
      if (caps.maxStorageBuffersPerShaderStage < 7) return;
      const tiled = [undefined, { threads: 128, partners: 32 }, { threads: 64, partners: 32 }, { threads: 64, partners: 8 }];
      const cfgs: FlashConfig[] = [{ rows: 64, tile: 16, grad: 'rows' }, ...tiled.map((t) => ({ rows: 64, tile: 16, grad: 'tiled' as const, ...(t ? { tiled: t } : {}) }))];
      const shapes: [number[], number, number, number, number][] = [[[2], 45, 37, 8, 12], [[1], 33, 40, 64, 64]];
      let defaultTiled = 0;
      for (const cfg of cfgs)
        for (const [lead, tq, tk, d, dv] of shapes)
          for (const causal of [true, false]) {
            const ops = gradOperands(lead, tq, tk, d, dv);
            for (const wrt of ['q', 'k', 'v'] as const)
              await check('attentionGrad', ops, { causal, scale: 1 / Math.sqrt(d), wrt }, caps, {
                rtol: 1e-3,
                atol: 1e-4,
                plan: (s, c) => {
                  const p = flashAttentionGradPlan(s, c, cfg);
                  if (cfg === cfgs[1] && p.dispatches[0].code.includes('tiled')) defaultTiled++;
                  return p;
                },
              });
            const plan = (s: KernelSpec<'attentionGradKV'>, c: DeviceCaps) => flashAttentionGradKVPlan({ ...s, results: ['buffer', 'unused'] }, c, ['k'], cfg);
            if (d === dv) await check('attentionGradKV', ops, { causal, scale: 1 / Math.sqrt(d) }, caps, { rtol: 1e-3, atol: 1e-4, plan });
          }
      const [b, t, h, d] = [2, 41, 3, 16];
      const seq: Operand[] = [{ shape: [b, t, h, d] }, { shape: [b, t, h, d] }, { shape: [b, t, h, d] }, { shape: [b, t, h, d] }, { shape: [b, t, h] }, { shape: [b, t, h] }];
      for (const wrt of ['q', 'k', 'v'] as const) await check('attentionGrad', seq, { causal: true, scale: 0.3, seqMajor: true, wrt }, caps, { rtol: 1e-3, atol: 1e-4, plan: (s, c) => flashAttentionGradPlan(s, c, cfgs[1]) });
      // a shipped tiled shape fits every cap set with 128 threads and 32 KiB (D = 64 takes the 16-row tiles there)
      if (caps.maxComputeWorkgroupStorageSize >= 32768 && caps.maxComputeInvocationsPerWorkgroup >= 128) expect(defaultTiled).toBe(2 * 2 * 3);
    });

    // the matmul-style gradients (flashAttentionGemmGrad.ts): each shape forced where the caps allow it on ragged
    // anchor blocks and partner tiles (T not a multiple of 32 or 64), Tq ≠ Tk, D = 16 and D ≠ Dv (D = 12: 4-column
    // chunks; Dv = 20: column lanes past Dv); the shipped choice at D = 32 / 48 / 64 / 80; causal and not, several
    // scales, heads-major and seq-major. Scales keep scale·s − L within f32's reach of the interpreter's sums (L is
    // random here, not the scores' log-sum-exp).
    it('matmul-style flash gradients agree with the interpreter', async () => {
      const caps = await getCaps();
      if (caps.maxStorageBuffersPerShaderStage < 7) return;
      const gemm: GemmGradConfig[] = [
        ...GEMM_GRAD_CONFIGS,
        { threads: 128, anchors: 64, partners: 64, rowsPerThread: 4, chunk: 8 },
        { threads: 128, anchors: 64, partners: 64, rowsPerThread: 8, chunk: 8 },
        { threads: 64, anchors: 64, partners: 64, rowsPerThread: 8, chunk: 8 },
        { threads: 64, anchors: 64, partners: 32, rowsPerThread: 8, chunk: 4 },
      ];
      // (each shape on one of the two small cases, alternating, to keep the software adapter's compiles few)
      type Case = [FlashConfig, number[], number, number, number, number, number, boolean[]];
      const both = [true, false];
      const forced = gemm.map((g, i): Case => {
        const cfg: FlashConfig = { rows: 64, tile: 16, grad: 'gemm', gemm: g };
        return i % 2 === 0 ? [cfg, [2], 45, 37, 16, 16, 0.25, both] : [cfg, [2], 21, 17, 12, 20, 0.2, both];
      });
      const shipped: FlashConfig = { rows: 64, tile: 16 };
      const dims: Case[] = [[shipped, [1], 70, 66, 32, 32, 1 / Math.sqrt(32), [true]], [shipped, [1], 33, 40, 64, 64, 0.125, [true]], [shipped, [1], 29, 29, 48, 48, 0.1, [false]], [shipped, [1], 19, 23, 80, 80, 0.1, [false]]];
      const seen = new Set<string>();
      for (const [cfg, lead, tq, tk, d, dv, scale, causals] of [...forced, ...dims])
        for (const causal of causals) {
          const ops = gradOperands(lead, tq, tk, d, dv);
          const plan = (s: KernelSpec<'attentionGrad'>, c: DeviceCaps) => {
            const p = flashAttentionGradPlan(s, c, cfg);
            seen.add(p.dispatches[0].code.split('\n')[1]);
            return p;
          };
          for (const wrt of ['q', 'k', 'v'] as const) await check('attentionGrad', ops, { causal, scale, wrt }, caps, { rtol: 1e-3, atol: 1e-4, plan });
          const kv = (s: KernelSpec<'attentionGradKV'>, c: DeviceCaps) => flashAttentionGradKVPlan({ ...s, results: ['buffer', 'unused'] }, c, ['k'], cfg);
          if (d === dv) await check('attentionGradKV', ops, { causal, scale }, caps, { rtol: 1e-3, atol: 1e-4, plan: kv });
        }
      // every forced shape ran where it fits (dq at its case's D), not a fallback; the shipped choice is matmul-style
      for (const [i, g] of gemm.entries())
        if (gemmGradFits({ heads: 2, seqHeads: 0, tq: 45, tk: 37, d: i % 2 === 0 ? 16 : 12, dv: i % 2 === 0 ? 16 : 20, views: {} }, { q: true }, caps, g)) expect([...seen].some((l) => l.includes(`dq, register-tiled matmuls: a workgroup of ${g.threads} per (head, ${g.anchors} query rows), key tiles of ${g.partners}, ${g.rowsPerThread}x`))).toBe(true);
      if (GEMM_GRAD_CONFIGS.some((g) => gemmGradFits({ heads: 1, seqHeads: 0, tq: 19, tk: 23, d: 80, dv: 80, views: {} }, { k: true, v: false }, caps, g))) expect([...seen].filter((l) => l.includes('dk, register-tiled')).length).toBeGreaterThan(0);
      for (const cfg of [shipped, forced[forced.length - 2][0]]) {
        const [b, t, h, d] = [2, 41, 3, 16];
        const seq: Operand[] = [{ shape: [b, t, h, d] }, { shape: [b, t, h, d] }, { shape: [b, t, h, d] }, { shape: [b, t, h, d] }, { shape: [b, t, h] }, { shape: [b, t, h] }];
        for (const wrt of ['q', 'k', 'v'] as const) await check('attentionGrad', seq, { causal: true, scale: 0.15, seqMajor: true, wrt }, caps, { rtol: 1e-3, atol: 1e-4, plan: (s, c) => flashAttentionGradPlan(s, c, cfg) });
      }
    }, 300_000);

    // deltaFromOut: operand 5 is attention's output O and each kernel computes Δ = rowsum(dO ⊙ O) of its rows
    it('flash gradients computing Δ from the output (deltaFromOut) agree with the interpreter', async () => {
      const caps = await getCaps();
      if (caps.maxStorageBuffersPerShaderStage < 7) return;
      const cfgs: FlashConfig[] = [{ rows: 64, tile: 16, grad: 'rows' }, { rows: 64, tile: 16, grad: 'tiled' }, { rows: 64, tile: 16, grad: 'gemm' }];
      for (const cfg of cfgs)
        for (const [lead, tq, tk, d, dv, seqMajor] of [[[2], 37, 29, 8, 12, false], [[2], 21, 21, 16, 8, true]] as const) {
          const rows = seqMajor ? [lead[0], tq, 3] : [...lead, tq];
          const t = (n: number, m: number) => (seqMajor ? [lead[0], n, 3, m] : [...lead, n, m]);
          const ops: Operand[] = [{ shape: t(tq, d) }, { shape: t(tk, d) }, { shape: t(tk, dv) }, { shape: t(tq, dv) }, { shape: rows }, { shape: t(tq, dv) }];
          const attrs = { causal: true, scale: 0.3, deltaFromOut: true, ...(seqMajor ? { seqMajor } : {}) };
          for (const wrt of ['q', 'k', 'v'] as const) await check('attentionGrad', ops, { ...attrs, wrt }, caps, { rtol: 1e-3, atol: 1e-4, plan: (s, c) => flashAttentionGradPlan(s, c, cfg) });
          const kv = ops.map((o, i) => (i === 2 ? { shape: t(tk, d) } : i === 3 || i === 5 ? { shape: t(tq, d) } : o));
          const plan = (s: KernelSpec<'attentionGradKV'>, c: DeviceCaps) => flashAttentionGradKVPlan({ ...s, results: ['buffer', 'unused'] }, c, ['k'], cfg);
          await check('attentionGradKV', kv, attrs, caps, { rtol: 1e-3, atol: 1e-4, plan });
        }
      // odd head sizes have no flash kernel: a clear refusal, not a wrong Δ
      const g = new Graph();
      const shapes = [[2, 5, 6], [2, 5, 6], [2, 5, 6], [2, 5, 6], [2, 5], [2, 5, 6]];
      const node = g.node('attentionGrad', shapes.map((s, i) => g.input(`x${i}`, s)), { causal: false, scale: 0.5, wrt: 'q', deltaFromOut: true });
      expect(() => generateKernel({ node, inputs: shapes.map((s) => ({ shape: s, dtype: 'f32' as const })) }, caps)).toThrow(/deltaFromOut.*flash/);
    });

    it('rope rotates half-split pairs, and its inverse', async () => {
      const caps = await getCaps();
      await check('rope', [{ shape: [2, 7, 8] }], { base: 10000, inverse: false }, caps, { rtol: 1e-4, atol: 1e-4 });
      await check('rope', [{ shape: [3, 2, 40, 6] }], { base: 500, inverse: true }, caps, { rtol: 1e-4, atol: 1e-4 });
    });

    it('dropout reproduces the interpreter mask bit for bit, with and without a seed offset', async () => {
      const caps = await getCaps();
      await check('dropout', [{ shape: [13, 17] }], { p: 0.3, seed: 12345 }, caps, { exact: true });
      await check('dropout', [{ shape: [500] }, { shape: [], dtype: 'i32' }], { p: 0.5, seed: 4000000000 }, caps, { exact: true });
      await check('dropout', [{ shape: [9] }], { p: 0, seed: 1 }, caps, { exact: true });
    });
  });

  describe('convolution and pooling', () => {
    const convs: { x: number[]; w: number[]; a: { stride: [number, number]; padding: [number, number]; dilation: [number, number]; groups: number } }[] = [
      { x: [2, 3, 7, 6], w: [4, 3, 3, 3], a: { stride: [1, 1], padding: [1, 1], dilation: [1, 1], groups: 1 } },
      { x: [1, 4, 9, 8], w: [6, 2, 3, 2], a: { stride: [2, 3], padding: [1, 0], dilation: [1, 2], groups: 2 } },
      { x: [3, 1, 5, 5], w: [2, 1, 1, 1], a: { stride: [1, 1], padding: [0, 0], dilation: [1, 1], groups: 1 } },
      // channel tiles of 4 in both directions (conv2d: O/groups = 8; its input gradient: C/groups = 4)
      { x: [2, 8, 5, 6], w: [16, 4, 3, 3], a: { stride: [2, 1], padding: [1, 1], dilation: [1, 1], groups: 2 } },
    ];
    const outSize = (h: number, k: number, s: number, p: number, d: number) => Math.floor((h + 2 * p - d * (k - 1) - 1) / s) + 1;
    it('conv2d and both of its gradients match the interpreter', async () => {
      const caps = await getCaps();
      for (const { x, w, a } of convs) {
        const y = [x[0], w[0], outSize(x[2], w[2], a.stride[0], a.padding[0], a.dilation[0]), outSize(x[3], w[3], a.stride[1], a.padding[1], a.dilation[1])];
        await check('conv2d', [{ shape: x }, { shape: w }], a, caps, { rtol: 1e-4, atol: 1e-4 });
        await check('conv2dGradInput', [{ shape: y }, { shape: w }], { ...a, inputSize: [x[2], x[3]] }, caps, { rtol: 1e-4, atol: 1e-4 });
        await check('conv2dGradWeight', [{ shape: x }, { shape: y }], { ...a, kernelSize: [w[2], w[3]] }, caps, { rtol: 1e-4, atol: 1e-4 });
      }
    });

    it('max and average pooling and their gradients, with overlapping padded windows', async () => {
      const caps = await getCaps();
      const pools: { x: number[]; a: { kernel: [number, number]; stride: [number, number]; padding: [number, number] } }[] = [
        { x: [2, 3, 6, 6], a: { kernel: [2, 2], stride: [2, 2], padding: [0, 0] } },
        { x: [1, 2, 7, 5], a: { kernel: [3, 3], stride: [2, 1], padding: [1, 1] } },
      ];
      for (const { x, a } of pools) {
        const y = [x[0], x[1], outSize(x[2], a.kernel[0], a.stride[0], a.padding[0], 1), outSize(x[3], a.kernel[1], a.stride[1], a.padding[1], 1)];
        const m = { ...a, dilation: [1, 1] as [number, number], ceilMode: false };
        await check('maxPool2d', [{ shape: x }], m, caps);
        await check('maxPool2dGrad', [{ shape: x }, { shape: y }], m, caps, { rtol: 1e-5, atol: 1e-5 });
        await check('avgPool2d', [{ shape: x }], a, caps);
        await check('avgPool2dGrad', [{ shape: y }], { ...a, inputSize: [x[2], x[3]] }, caps);
      }
    });

    it('max pooling with dilation, ceil mode and stride > kernel, its indices and gradient (ties: the first max)', async () => {
      const caps = await getCaps();
      const pools: { x: number[]; a: OpAttrs['maxPool2d'] }[] = [
        { x: [1, 2, 7, 6], a: { kernel: [3, 2], stride: [2, 2], padding: [1, 1], dilation: [2, 2], ceilMode: true } },
        { x: [2, 1, 9, 7], a: { kernel: [2, 2], stride: [3, 3], padding: [0, 1], dilation: [1, 1], ceilMode: true } },
        { x: [1, 3, 5, 8], a: { kernel: [3, 3], stride: [1, 2], padding: [1, 0], dilation: [1, 2], ceilMode: false } },
      ];
      for (const { x, a } of pools) {
        const y = [x[0], x[1], poolExtent(x[2], a.kernel[0], a.stride[0], a.padding[0], a.dilation[0], a.ceilMode), poolExtent(x[3], a.kernel[1], a.stride[1], a.padding[1], a.dilation[1], a.ceilMode)];
        for (const gen of ['any', 'small-int'] as const) {
          await check('maxPool2d', [{ shape: x, gen }], a, caps);
          await check('maxPool2dIndices', [{ shape: x, gen }], a, caps, { exact: true });
          await check('maxPool2dGrad', [{ shape: x, gen }, { shape: y }], a, caps, { rtol: 1e-5, atol: 1e-5 });
        }
      }
    });
  });

  describe('transpose', () => {
    it('permutes any axes, tiled for 2-D and batched 2-D', async () => {
      const caps = await getCaps();
      await check('transpose', [{ shape: [37, 19] }], { perm: [1, 0] }, caps);
      await check('transpose', [{ shape: [3, 20, 9] }], { perm: [0, 2, 1] }, caps);
      await check('transpose', [{ shape: [2, 3, 4, 5] }], { perm: [2, 0, 3, 1] }, caps);
      await check('transpose', [{ shape: [4, 6], dtype: 'i32' }], { perm: [1, 0] }, caps);
      await check('transpose', [{ shape: [2, 1, 3] }], { perm: [1, 2, 0] }, caps);
    });
  });
});

describe('matmul tuning candidates', () => {
  // each candidate (k unrolled, double-buffered) on the device; (false,false) and (true,true) cover both load forms
  // (along k and across it) of each operand: ragged edges (K not a multiple of BK, an odd
  // slice count), scalar loads, and split-K with the candidate's tile
  it.each([[false, false], [true, true]])('every candidate that fits agrees with the interpreter (transA=%s transB=%s)', async (transA, transB) => {
    const caps = await testCaps();
    const fits = MATMUL_CANDIDATES.filter((c) => matmulConfigFits(c, caps));
    expect(fits.some((c) => c.db)).toBe(true);
    // one ragged shape per candidate keeps this under a few seconds on llvmpipe; K = 40 is 2.5 slices of 16, 5 of 8
    for (const cfg of fits) {
      for (const [m, n, k] of [[cfg.bm + 2, cfg.bn + 4, 40]] as [number, number, number][])
        await check('fusedMatmul', [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }, { shape: [n] }], { transA, transB, bias: true, activation: 'relu' }, caps, { rtol: 1e-4, atol: 1e-4, plan: (s, c) => matmulPlanWith(s, c, cfg) });
    }
    for (const cfg of fits.filter((c) => c.db && c.bk === 16)) {
      const [m, n, k] = [40, 36, 2100];
      expect(chooseSplitK(m, n, k, 1, caps, [cfg])?.splits).toBeGreaterThan(1);
      await check('matmul', [{ shape: transA ? [k, m] : [m, k] }, { shape: transB ? [n, k] : [k, n] }], { transA, transB }, caps, { rtol: 1e-4, atol: 1e-4, plan: (s, c) => matmulKernel(s, c, [cfg]) });
    }
  });

  it('A staged k-contiguous (+ka) agrees with the interpreter: loop, unrolled, double-buffered, split-K, and its fallbacks', async () => {
    const caps = await testCaps();
    const kas = (
      [
        [32, 32, 16, 4, 4],
        [32, 32, 8, 4, 4],
      ] as const
    ).flatMap(([bm, bn, bk, tm, tn]) => [{ bm, bn, bk, tm, tn, minTiles: 0, ka: true }, { bm, bn, bk, tm, tn, minTiles: 0, ka: true, unroll: true }, { bm, bn, bk, tm, tn, minTiles: 0, ka: true, unroll: true, db: true }]);
    const fits = kas.filter((c) => matmulConfigFits(c, caps));
    expect(fits.length).toBeGreaterThan(3);
    // the plan each check ran, so the test can say which layout it exercised
    let code = '';
    const withCfg = (cfg: MatmulConfig, plan = matmulPlanWith) => (s: KernelSpec<'matmul' | 'fusedMatmul'>, c: DeviceCaps) => {
      const p = plan(s, c, cfg);
      code = p.dispatches[0].code;
      return p;
    };
    const tol = { rtol: 1e-4, atol: 1e-4 };
    for (const cfg of fits) {
      // A read along k (the ka layout), with B both ways; ragged M/N, K = 44: 2.75 slices of 16, 5.5 of 8
      const [m, n, k] = [cfg.bm + 6, cfg.bn + 4, 44];
      for (const transB of [false, true]) {
        await check('fusedMatmul', [{ shape: [m, k] }, { shape: transB ? [n, k] : [k, n] }, { shape: [n] }], { transA: false, transB, bias: true, activation: 'relu' }, caps, { ...tol, plan: withCfg(cfg) });
        expect(code).toContain('A staged k-contiguous');
      }
    }
    const cfg = fits[fits.length - 1];
    // split-K with the ka tile; then Aᵀ (read along m) and K = 42 (scalar loads): the usual layout, still correct
    await check('matmul', [{ shape: [200, 2100] }, { shape: [2100, 36] }], { transA: false, transB: false }, caps, { ...tol, plan: withCfg(cfg, (s, c, x) => matmulKernel(s, c, [x as MatmulConfig])) });
    expect(code).toContain('let kbeg = wid.z'); // split-K
    expect(code).toContain('A staged k-contiguous');
    await check('matmul', [{ shape: [42, 70] }, { shape: [42, 36] }], { transA: true, transB: false }, caps, { ...tol, plan: withCfg(cfg) });
    expect(code).not.toContain('k-contiguous');
    await check('matmul', [{ shape: [70, 42] }, { shape: [42, 36] }], { transA: false, transB: false }, caps, { ...tol, plan: withCfg(cfg) });
    expect(code).not.toContain('k-contiguous');
     // the shipped choice for a large A·B (MATMUL_LARGE): 2048x2048 outputs are 256 of its tiles
    await check('matmul', [{ shape: [2048, 12] }, { shape: [12, 2048] }], { transA: false, transB: false }, caps, { ...tol, plan: withCfg(MATMUL_LARGE, (s, c) => generateKernel(s, c)) });
    expect(code).toContain('tile 128x128x16, k unrolled, A staged k-contiguous');
  });

  it('a double-buffered candidate runs batched matmuls through grid z', async () => {
    const caps = await testCaps();
    const cfg = MATMUL_CANDIDATES.find((c) => c.db && matmulConfigFits(c, caps)) as MatmulConfig;
    await check('matmul', [{ shape: [2, 1, 70, 36] }, { shape: [3, 36, 40] }], { transA: false, transB: false }, caps, { rtol: 1e-4, atol: 1e-4, plan: (s, c) => matmulPlanWith(s, c, cfg) });
  });
});

describe('2-D grids beyond maxComputeWorkgroupsPerDimension', () => {
  const caps: DeviceCaps = { ...COMPAT_CAPS, maxComputeWorkgroupsPerDimension: 4 };
  it('elementwise, reductions, softmax rows and nllGrad index workgroups in x and y', async () => {
    await check('add', [{ shape: [11, 128] }, { shape: [128] }], E, caps);
    await check('sum', [{ shape: [10, 100] }], { axes: [1], keepdims: false }, caps, { atol: 1e-4 });
    await check('mean', [{ shape: [3, 700] }], { axes: [0], keepdims: true }, caps);
    await check('logSoftmax', [{ shape: [9, 70] }], { axis: 1 }, caps);
    await check('softmaxCrossEntropyGrad', [{ shape: [9, 70] }, { shape: [9], dtype: 'i32', gen: 'labels', classes: 70 }, { shape: [] }], { reduction: 'mean' }, caps);
    await check('nllGrad', [{ shape: [50], dtype: 'i32', gen: 'labels', classes: 30 }, { shape: [] }], { reduction: 'sum', classes: 30 }, caps);
    await check('transpose', [{ shape: [9, 10, 17] }], { perm: [2, 0, 1] }, caps);
  });
});

describe('labels outside [0, C)', () => {
  it('contribute 0 to nll and softmaxCrossEntropy and no one-hot to the gradients, without faulting', async () => {
    const caps = await testCaps();
    const [n, c] = [4, 5];
    const labels = new Int32Array([2, -1, 5, 4]);
    const logits = randomValue([n, c], 'f32', 'any').data as Float32Array;
    const dy = new Float32Array([1.5]);
    const g = new Graph();
    const x = g.input('x', [n, c]);
    const l = g.input('l', [n], 'i32');
    const d = g.input('dy', []);
    const run = async (node: Node, inputs: ArrayBufferView[]) =>
      new Float32Array(await runPlan(generateKernel({ node, inputs: node.inputs.map((id) => g.nodes[id]) }, caps), inputs, numel(node.shape) * 4));
    const lse = (r: number) => {
      const row = Array.from(logits.slice(r * c, r * c + c));
      const m = Math.max(...row);
      return m + Math.log(row.reduce((s, v) => s + Math.exp(v - m), 0));
    };
    const valid = [0, 3];
    const ce = valid.reduce((s, r) => s + lse(r) - logits[r * c + labels[r]], 0) / n;
    expect(await run(g.node('softmaxCrossEntropy', [x, l], { reduction: 'mean' }), [logits, labels])).toBeAllclose([ce], { rtol: 1e-5 });
    const nll = -valid.reduce((s, r) => s + logits[r * c + labels[r]], 0);
    expect(await run(g.node('nll', [x, l], { reduction: 'sum' }), [logits, labels])).toBeAllclose([nll], { rtol: 1e-5 });
    const grad = await run(g.node('nllGrad', [l, d], { reduction: 'sum', classes: c }), [labels, dy]);
    expect(Array.from(grad.slice(c, 3 * c))).toEqual(new Array(2 * c).fill(0));
    const sg = await run(g.node('softmaxCrossEntropyGrad', [x, l, d], { reduction: 'sum' }), [logits, labels, dy]);
    const soft = Array.from({ length: c }, (_, j) => Math.exp(logits[c + j] - lse(1)) * 1.5);
    expect(sg.slice(c, 2 * c)).toBeAllclose(soft, { rtol: 1e-5, atol: 1e-6 });
  });
});

describe('coverage', () => {
  it('every GPU op has a GPU test above', () => {
    const tested = new Set<string>([...UNARY_OPS, ...BINARY_OPS, ...COMPARISON_OPS, 'where', 'cast', 'expand', 'pointwise', 'pointwiseMulti', 'pointwiseReduce', 'rowwise', 'matmulEpilogue', 'matmulPartials', 'matmul', 'fusedMatmul', 'slice', 'pad', 'concat', 'gather', 'scatterAdd', 'oneHot', 'argmax', 'cumsum', 'stopGradient', 'attention', 'attentionLse', 'attentionWithLse', 'attentionGrad', 'attentionGradKV', 'attentionGradQKV', 'rope', 'dropout', 'conv2d', 'conv2dGradInput', 'conv2dGradWeight', 'maxPool2d', 'maxPool2dGrad', 'maxPool2dIndices', 'avgPool2d', 'avgPool2dGrad', 'sum', 'mean', 'reduceMax', 'reduceMin', 'logSoftmax', 'logSoftmaxGrad', 'softmaxCrossEntropy', 'softmaxCrossEntropyGrad', 'nll', 'nllGrad', 'transpose']);
    // its one-dispatch form reads the runtime's arena layout: packages/runtime-webgpu/test/multiTensor.gpu.test.ts runs both forms
    tested.add('pointwiseMultiTensor');
    tested.add('pointwiseReduceMulti'); // several results: packages/runtime-webgpu/test/reduceMulti.gpu.test.ts checks each through compile
    tested.add('rowwiseMulti'); // several results: packages/runtime-webgpu/test/rowwiseMulti.gpu.test.ts checks each through compile
    tested.add('matmulQ8'); // quantized weights: matmulQ8.gpu.test.ts (both kernels against the interpreter) and nn's quantizedGeneration.gpu.test.ts
    tested.add('matmulQ4'); // as matmulQ8: matmulQ4.gpu.test.ts and nn's quantizedGeneration.gpu.test.ts
    tested.add('custom'); // a user's kernel: packages/nn/test/customOp.gpu.test.ts runs one in training against the interpreter
    expect(Object.keys(KERNELS).filter((op) => !tested.has(op as GpuOp))).toEqual([]);
  });
});
