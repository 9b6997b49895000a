// The matmul-style flash-attention forward (flashAttentionGemmForward.ts) on a real adapter against the reference
// interpreter (float32): every shipped shape and odd ones (8-row thread tiles, two key groups a thread, D in several
// chunks with Q resident, V in several chunks), forced through FlashConfig, at odd lengths (Tq ≠ Tk, neither a
// multiple of a tile), D from 4 to 128 with Dv ≠ D, causal and not, heads-major, seq-major and head windows of one
// fused QKV tensor; attention's output and the log-sum-exp of all three forward ops, each result alone and both.
import { Graph, interpret, mulberry32, type Node, numel, type OpAttrs, type Shape, type TensorValue, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { runPlan, testCaps } from '../../../tooling/test/gpu.js';
import { type FlashConfig, flashAttentionLsePlan, flashAttentionPlan, flashAttentionWithLsePlan } from './flashAttention.js';
import { GEMM_FORWARD_CONFIGS, type GemmForwardConfig } from './flashAttentionGemmForward.js';
import type { KernelPlan, KernelSpec } from './kernel.js';
import { checkPlan } from './registry.js';

let seed = 11;
const random = (shape: Shape): TensorValue => {
  const r = mulberry32(seed++);
  return tensor(shape, Array.from({ length: numel(shape) }, () => 2 * r() - 1));
};

const ODD_SHAPES: GemmForwardConfig[] = [
  // 8 query rows a thread, one key group; two key groups a thread (4 x 8 tiles); D in 4-column chunks with Q
  // resident and V in several 8-row chunks
  { threads: 32, queries: 32, keys: 32, rowsPerThread: 8, chunk: 8, residentQ: false },
  { threads: 32, queries: 32, keys: 32, rowsPerThread: 4, chunk: 16, residentQ: true },
  { threads: 64, queries: 32, keys: 32, rowsPerThread: 4, chunk: 4, residentQ: true },
];
const gemm = (c?: GemmForwardConfig): FlashConfig => ({ rows: 64, tile: 16, forward: 'gemm', ...(c ? { gemmForward: c } : {}) });

type Form = 'attention' | 'attentionLse' | 'attentionWithLse';

interface Problem {
  /** The operand shapes: q, k, v (attentionLse: q, k), or one fused tensor bound three times (`fused`). */
  readonly shapes: Shape[];
  readonly attrs: OpAttrs['attention'];
  readonly fused?: boolean;
}

/** Runs `plan` once per result it writes (the harness reads one buffer: the other result goes to a spare input). */
async function runResults(plan: KernelPlan, data: Float32Array[], sizes: number[]): Promise<Float32Array[]> {
  const got: Float32Array[] = [];
  for (const [r, size] of sizes.entries()) {
    if (size === 0) continue;
    const spare = data.length;
    const rebound: KernelPlan = {
      ...plan,
      dispatches: plan.dispatches.map((d) => ({
        ...d,
        bindings: d.bindings.map((b) => (b.source.kind === 'output' && (b.source.index ?? 0) !== r ? { ...b, source: { kind: 'input', index: spare } as const } : b)),
      })),
    };
    const other = sizes.find((_, i) => i !== r) ?? 0;
    got.push(new Float32Array(await runPlan(rebound, [...data, new Float32Array(Math.max(other, 4))], size * 4)));
  }
  return got;
}

/**
 * Checks one forward op on the gemm kernel (its strategy line says so) against the interpreter: attention's output
 * where `out`, the log-sum-exp where `lse` (attentionWithLse: each asked for alone or both).
 */
async function check(form: Form, p: Problem, writes: { out: boolean; lse: boolean }, cfg: FlashConfig): Promise<void> {
  const caps = await testCaps();
  const g = new Graph();
  const feeds: Record<string, TensorValue> = {};
  const leaves = p.shapes.map((s, i) => g.input(`x${i}`, s));
  for (const [i, s] of p.shapes.entries()) feeds[`x${i}`] = random(s);
  const operands: Node[] = p.fused ? [leaves[0], leaves[0], leaves[0]].slice(0, form === 'attentionLse' ? 2 : 3) : leaves;
  const node = g.node(form, operands, p.attrs);
  if (form === 'attentionWithLse') {
    g.output('o', node);
    g.output('lse', g.node('pick', [node], { index: 1 }));
  } else g.output(form === 'attention' ? 'o' : 'lse', node);
  const want = interpret(g, feeds, {}, 'f32').outputs;
  const inputs = operands.map((o) => ({ shape: o.shape, dtype: 'f32' as const }));
  const data = operands.map((o) => feeds[`x${leaves.indexOf(o)}`].data as Float32Array);
  const spec = { node, inputs } as KernelSpec;
  let plan: KernelPlan;
  if (form === 'attention') plan = flashAttentionPlan(spec as KernelSpec<'attention'>, caps, cfg);
  else if (form === 'attentionLse') plan = flashAttentionLsePlan(spec as KernelSpec<'attentionLse'>, caps, cfg);
  else plan = flashAttentionWithLsePlan(spec as KernelSpec<'attentionWithLse'>, caps, writes, cfg);
  checkPlan(spec, plan, caps);
  const strategy = plan.dispatches[0].code.split('\n')[1];
  expect(strategy).toContain('register-tiled matmuls');
  const c = cfg.gemmForward;
  if (c) expect(strategy).toContain(`a workgroup of ${c.threads} per (head, ${c.queries} query rows), key tiles of ${c.keys}, ${c.rowsPerThread}x`);
  const sizes = [writes.out ? numel(want.o.shape) : 0, writes.lse ? numel(want.lse.shape) : 0];
  // attention and attentionLse have one result (index 0); attentionWithLse's log-sum-exp is result 1
  const got = await runResults(plan, data, form === 'attentionWithLse' ? sizes : [sizes[0] || sizes[1]]);
  const names = [...(writes.out ? ['o'] : []), ...(writes.lse ? ['lse'] : [])];
  for (const [i, n] of names.entries()) expect(got[i], `${form} ${n}`).toBeAllclose(want[n].data, { rtol: 1e-4, atol: 1e-5 });
}

const both = { out: true, lse: true };
// [heads, Tq, Tk, D, Dv], heads-major: several query blocks and key tiles, ragged last ones, Tq ≠ Tk both ways
const HEADS_MAJOR: [number, number, number, number, number][] = [
  [2, 37, 41, 16, 8],
  [1, 70, 66, 12, 4],
  [3, 5, 7, 4, 8],
];

describe('the matmul-style attention forward', () => {
  for (const causal of [false, true]) {
    it(`writes the output and log-sum-exp in every shipped and odd shape, matching the interpreter${causal ? ' (causal)' : ''}`, async () => {
      for (const c of [...GEMM_FORWARD_CONFIGS, ...ODD_SHAPES])
        for (const [h, tq, tk, d, dv] of HEADS_MAJOR.slice(0, 2)) await check('attentionWithLse', { shapes: [[h, tq, d], [h, tk, d], [h, tk, dv]], attrs: { causal, scale: 0.4 } }, both, gemm(c));
    });

    it(`runs attention, attentionLse and each result of attentionWithLse alone${causal ? ' (causal)' : ''}`, async () => {
      for (const [h, tq, tk, d, dv] of HEADS_MAJOR) {
        const shapes = [[h, tq, d], [h, tk, d], [h, tk, dv]];
        const attrs = { causal, scale: 1 / Math.sqrt(d) };
        await check('attention', { shapes, attrs }, { out: true, lse: false }, gemm());
        await check('attentionLse', { shapes: shapes.slice(0, 2), attrs }, { out: false, lse: true }, gemm());
        await check('attentionWithLse', { shapes, attrs }, { out: true, lse: false }, gemm());
        await check('attentionWithLse', { shapes, attrs }, { out: false, lse: true }, gemm());
      }
    });

    it(`handles D = 32, 64, 128 with Dv ≠ D, seq-major${causal ? ' (causal)' : ''}`, async () => {
      for (const [b, t, h, d, dv] of [
        [2, 45, 3, 32, 64],
        [1, 67, 2, 64, 64],
        [1, 33, 1, 128, 32],
      ]) {
        const attrs = { causal, scale: 1 / Math.sqrt(d), seqMajor: true };
        await check('attentionWithLse', { shapes: [[b, t, h, d], [b, t + 3, h, d], [b, t + 3, h, dv]], attrs }, both, gemm());
      }
    });

    it(`reads q, k, v as head windows of one fused tensor (the GPT step's layout)${causal ? ' (causal)' : ''}`, async () => {
      const [b, t, h, d] = [2, 37, 3, 16];
      const attrs = { causal, scale: 0.3, seqMajor: true, window: { heads: h, offsets: [0, h, 2 * h] } };
      for (const c of [GEMM_FORWARD_CONFIGS[0], GEMM_FORWARD_CONFIGS[2]]) {
        await check('attentionWithLse', { shapes: [[b, t, 3 * h, d]], attrs, fused: true }, both, gemm(c));
        await check('attentionLse', { shapes: [[b, t, 3 * h, d]], attrs: { ...attrs, window: { heads: h, offsets: [0, h, 0] } }, fused: true }, { out: false, lse: true }, gemm(c));
      }
    });
  }
});
