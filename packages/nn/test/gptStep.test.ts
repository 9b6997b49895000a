// The GPT training step (decomposed attention, layer norm, GELU, cross-entropy, autograd backward, AdamW),
// optimized by the e-graph, computes what the unoptimized step computes: loss and every state update agree
// under the float64 interpreter, and the optimized step needs far fewer dispatches. Decomposed attention, masked
// in-graph, is recognized before grad and optimizes to the same plan as ir's attention op.
import { graphFigures, optimize } from '@neura/egraph';
import { interpret, mulberry32, type TensorValue, tensor } from '@neura/ir';
import { buildGptStep, type GptConfig } from '@neura/nn';
import { describe, expect, it } from 'vitest';

function feeds(c: GptConfig & { batch: number }, seed: number): Record<string, TensorValue> {
  const r = mulberry32(seed);
  const n = c.batch * c.context;
  const ids = () => Array.from({ length: n }, () => Math.floor(r() * c.vocab));
  const shape = [c.batch, c.context];
  return { tokens: tensor(shape, ids(), 'i32'), targets: tensor(shape, ids(), 'i32') };
}

/** Optimizes c's step (attention recognized before grad) and checks it against the step as written, unoptimized. */
function expectSameStep(c: GptConfig & { batch: number }, options: Parameters<typeof optimize>[1] = {}) {
  const before = buildGptStep(c, { recognize: false });
  const { graph: after, report } = optimize(buildGptStep(c), options);
  const f = feeds(c, 11);
  const a = interpret(before, f, {}, 'f64');
  const b = interpret(after, f, {}, 'f64');
  expect(Object.keys(b.updates).sort()).toEqual(Object.keys(a.updates).sort());
  expect(b.outputs.loss.data).toBeAllclose(a.outputs.loss.data, { rtol: 1e-9, atol: 1e-12 });
  for (const k of Object.keys(a.updates)) expect(b.updates[k].data, k).toBeAllclose(a.updates[k].data, { rtol: 1e-8, atol: 1e-12 });
  return { report, graph: after };
}

describe('the optimized GPT training step', () => {
  it('matches the unoptimized step in f64: loss and every parameter and moment update (1 layer, width 32, context 8)', () => {
    const { report } = expectSameStep({ layers: 1, heads: 2, width: 32, context: 8, batch: 2, vocab: 11 });
    expect(report.dispatchesAfter).toBeLessThan(report.dispatchesBefore / 2);
    expect(report.kernels.some((k) => k.op === 'fusedMatmul')).toBe(true);
    expect(report.kernels.some((k) => k.op === 'softmaxCrossEntropyGrad')).toBe(true);
  }, 60_000); // optimize plus two f64 interpreter runs: ~6 s on a loaded 2-core box, past vitest's default 5 s

  it('matches with two layers and the fused attention op in place of the decomposed one', () => {
    expectSameStep({ layers: 2, heads: 2, width: 16, context: 4, batch: 2, vocab: 7, attention: 'op' });
  }, 60_000);

  it('optimizes decomposed attention (in-graph causal mask) to the same dispatches and bytes as the attention op, and matches the step as written', () => {
    const c = { layers: 2, heads: 2, width: 16, context: 8, batch: 2, vocab: 7 };
    const { report, graph } = expectSameStep({ ...c, attention: 'decomposed' });
    const op = graphFigures(optimize(buildGptStep({ ...c, attention: 'op' })).graph);
    const ops = new Set(graph.live().map((i) => graph.nodes[i].op));
    expect([...ops].some((o) => o.startsWith('attentionGrad'))).toBe(true); // fused backward, no T×T softmax
    expect(report.dispatchesAfter).toBe(op.dispatches);
    expect(report.bytesAfter).toBe(op.bytes);
  }, 120_000);

  it('reads the split-K weight gradients in the AdamW update as their partials (512 tokens: every weight gradient splits)', () => {
    const c = { layers: 1, heads: 2, width: 16, context: 64, batch: 8, vocab: 7, attention: 'op' as const };
    const folded = expectSameStep(c).report;
    const plain = expectSameStep(c, { withoutRules: ['update-fold-partials'] }).report;
    // the four weight gradients of the block (qkv, projection, both MLP layers) and the token embedding's
    const partials = folded.kernels.filter((k) => k.op === 'matmulPartials');
    expect(partials.length).toBe(5);
    expect(plain.kernels.some((k) => k.op === 'matmulPartials')).toBe(false);
    expect(folded.kernels.find((k) => k.op === 'pointwiseMultiTensor')?.expr).toMatch(/role \d of 5 groups summed from split-K partials/);
    // each fold drops a split-K matmul's reduce pass
    expect(folded.dispatchesAfter).toBe(plain.dispatchesAfter - partials.length);
  }, 120_000);
});
