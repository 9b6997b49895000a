// The autocast pass of precision 'mixed' on a small GPT: which tensors come out f16, that gradients of the f32
// parameters stay f32, that the loss moves only by f16 rounding, and that the optimized step of the f16 graph
// computes what the unoptimized one does (the interpreter is the oracle; no GPU).
import { optimize } from '@neura/egraph';
import { type Graph, interpret, type Node, tensor } from '@neura/ir';
import { adamW } from '@neura/optim';
import { grad } from '@neura/autograd';
import { describe, expect, it } from 'vitest';
import { autocast, autocastModel } from './autocast.js';
import { buildTrainingStep } from './compileTraining.js';
import { GPT } from './models/gpt.js';
import { recognizedForward } from './recognizedForward.js';

const CONFIG = { layers: 1, heads: 2, width: 16, context: 8, vocab: 11, attention: 'op', gelu: 'tanh' } as const;
const BATCH = 2;
const feeds = {
  tokens: tensor([BATCH, CONFIG.context], Array.from({ length: BATCH * CONFIG.context }, (_, i) => (i * 7 + 3) % CONFIG.vocab), 'i32'),
  targets: tensor([BATCH, CONFIG.context], Array.from({ length: BATCH * CONFIG.context }, (_, i) => (i * 5 + 1) % CONFIG.vocab), 'i32'),
};

function gptForward() {
  const { graph, loss } = new GPT(CONFIG).trainingGraph(BATCH);
  return recognizedForward(graph, loss);
}

const ops = (g: Graph, op: string) => g.nodes.filter((n) => n.op === op);
const dtypesOf = (g: Graph, n: Node) => n.inputs.map((i) => g.nodes[i].dtype);

describe('autocast', () => {
  it('makes matmul operands and results f16 and keeps softmax statistics, norms, reductions and the loss f32', () => {
    const fwd = gptForward();
    const { graph: g, loss } = autocast(fwd.graph, fwd.loss);
    const matmuls = ops(g, 'matmul');
    expect(matmuls.length).toBe(ops(fwd.graph, 'matmul').length);
    for (const m of matmuls) expect([m.dtype, ...dtypesOf(g, m)]).toEqual(['f16', 'f16', 'f16']);
    // the linear's bias add and the MLP's GELU stay f16 (the bias is cast, as F.linear does)
    expect(ops(g, 'geluTanh').map((n) => n.dtype)).toEqual(['f16']);
    for (const op of ['mean', 'sum', 'rsqrt', 'logSoftmax', 'nll', 'softmaxCrossEntropy', 'attention'])
      for (const n of ops(g, op)) expect([op, ...dtypesOf(g, n)].every((d) => d === op || d === 'f32' || d === 'i32')).toBe(true);
    expect(loss.dtype).toBe('f32');
    for (const p of g.leaves('param')) expect(p.dtype).toBe('f32');
    // the caller's graph is untouched
    expect(fwd.graph.nodes.every((n) => n.dtype !== 'f16')).toBe(true);
  });

  it('casts a model graph without a loss (compileInference): f16 matmuls, outputs in the dtypes they had', () => {
    const fwd = gptForward();
    fwd.graph.output('loss', fwd.loss);
    const g = autocastModel(fwd.graph);
    for (const m of ops(g, 'matmul')) expect(m.dtype).toBe('f16');
    expect(g.get(g.outputs.get('loss') as number).dtype).toBe('f32');
    const mixed = interpret(g, feeds, {}, 'f32').outputs.loss.data[0];
    const ref = interpret(fwd.graph, feeds, {}, 'f32').outputs.loss.data[0];
    expect(mixed).not.toBe(ref);
    expect(Math.abs(mixed - ref) / ref).toBeLessThan(2e-3);
  });

  it('moves the loss only by f16 rounding', () => {
    const fwd = gptForward();
    const { graph: g, loss } = autocast(fwd.graph, fwd.loss);
    g.output('l', loss);
    fwd.graph.output('l', fwd.loss);
    const mixed = interpret(g, feeds, {}, 'f32').outputs.l.data[0];
    const ref = interpret(fwd.graph, feeds, {}, 'f32').outputs.l.data[0];
    expect(mixed).not.toBe(ref); // the casts took effect
    expect(Math.abs(mixed - ref) / ref).toBeLessThan(2e-3);
  });

  it('gives every f32 parameter an f32 gradient that the optimized graph computes as the unoptimized one does', () => {
    const fwd = gptForward();
    const { graph: g, loss } = autocast(fwd.graph, fwd.loss);
    const params = g.leaves('param');
    const grads = grad(g, loss, params);
    grads.forEach((d, i) => {
      expect(d.dtype).toBe('f32');
      g.output(params[i].attrs.name, d);
    });
    const { graph: opt } = optimize(g);
    const a = interpret(g, feeds, {}, 'f32').outputs;
    const b = interpret(opt, feeds, {}, 'f32').outputs;
    for (const p of params) {
      const [x, y] = [a[p.attrs.name].data, b[p.attrs.name].data];
      let worst = 0;
      let scale = 0;
      for (let i = 0; i < x.length; i++) {
        worst = Math.max(worst, Math.abs(x[i] - y[i]));
        scale = Math.max(scale, Math.abs(x[i]));
      }
      // the fused kernels round f16 values where the unfused nodes store them: equal up to f32 summation order
      expect(worst, p.attrs.name).toBeLessThanOrEqual(scale * 1e-3);
    }
  });

  it("takes a learning rate input of the model's graph from autocast's copy by name, so the fed value is used", () => {
    // as `pnpm gpt --precision mixed` does: lr is an input of the graph the model was built in, which autocast copies
    const { graph: built, loss: builtLoss } = new GPT(CONFIG).trainingGraph(BATCH);
    const lr = built.input('lr', []);
    const fwd = recognizedForward(built, builtLoss);
    const { graph: g, loss } = autocast(fwd.graph, fwd.loss);
    buildTrainingStep(g, { loss, optimizer: adamW({ lr }) });
    const step = (value: number) => interpret(g, { ...feeds, lr: tensor([], [value]) }, {}, 'f32').updates;
    const [slow, fast] = [step(1e-4), step(1e-2)];
    const name = Object.keys(slow).find((n) => n.startsWith('adamW') === false) as string;
    const init = interpret(g, { ...feeds, lr: tensor([], [0]) }, {}, 'f32').updates[name];
    const moved = (u: typeof init) => Math.max(...Array.from(u.data, (v, i) => Math.abs(v - init.data[i])));
    expect(moved(fast[name])).toBeGreaterThan(50 * moved(slow[name]));
    // an lr computed in another graph (not an input found by name) is refused by name
    const other = new GPT(CONFIG).trainingGraph(BATCH).graph;
    const wrong = other.input('rate', []);
    const again = autocast(fwd.graph, fwd.loss);
    expect(() => buildTrainingStep(again.graph, { loss: again.loss, optimizer: adamW({ lr: wrong }) })).toThrow(/adamW: lr: input 'rate' is not a scalar f32 input of the graph being trained/);
  });

  it('gives f32 parameters f32 gradients, and the optimized step agrees with the unoptimized one', () => {
    const fwd = gptForward();
    const { graph: g, loss } = autocast(fwd.graph, fwd.loss);
    buildTrainingStep(g, { loss, optimizer: adamW({ lr: 1e-2 }) });
    for (const u of g.updates) expect(g.nodes[u.value].dtype).toBe('f32');
    const { graph: opt } = optimize(g);
    expect(opt.nodes.some((n) => n.dtype === 'f16')).toBe(true);
    const a = interpret(g, feeds, {}, 'f32');
    const b = interpret(opt, feeds, {}, 'f32');
    expect(b.outputs.loss.data[0]).toBeCloseTo(a.outputs.loss.data[0], 5);
    for (const [name, v] of Object.entries(a.updates)) {
      const w = b.updates[name];
      let worst = 0;
      for (let i = 0; i < v.data.length; i++) worst = Math.max(worst, Math.abs(v.data[i] - w.data[i]));
      expect(worst, name).toBeLessThan(1e-3);
    }
  });

  it("folds its casts into the kernels around them: no cast kernel but a weight's, no more row kernels than fp32, and values kept", () => {
    // the portable mixed path (f16 storage, fp32 kernels): the e-graph reads the casts as nodes and folds them into
    // producers and consumers (matmul operands read rounded, f16 reductions, f16 operands of row kernels)
    const config = { ...CONFIG, layers: 2 };
    const step = (mixed: boolean) => {
      const built = new GPT(config).trainingGraph(BATCH);
      const fwd = recognizedForward(built.graph, built.loss);
      const { graph: g, loss } = mixed ? autocast(fwd.graph, fwd.loss) : fwd;
      buildTrainingStep(g, { loss, optimizer: adamW({ lr: 1e-2 }) });
      return { g, ...optimize(g) };
    };
    const mixed = step(true);
    const fp32 = step(false);
    const count = (g: Graph, op: string) => ops(g, op).length;
    // a weight's cast to f16 read by two products (forward and backward) may stay (folding it takes both at once;
    // GPT 2×128 keeps one); every other cast folds
    const casts = ops(mixed.graph, 'cast').filter((n) => mixed.graph.nodes[n.inputs[0]].op !== 'param');
    expect(casts.map((n) => `${n.shape}`)).toEqual([]);
    expect(count(mixed.graph, 'rowwise') + count(mixed.graph, 'rowwiseMulti')).toBeLessThanOrEqual(count(fp32.graph, 'rowwise') + count(fp32.graph, 'rowwiseMulti'));
    // (before the casts were folded: 96 dispatches against fp32's 72, 8 cast kernels, 18 row kernels against 10)
    expect(mixed.report.dispatchesAfter).toBeLessThanOrEqual(fp32.report.dispatchesAfter + 2);
    const a = interpret(mixed.g, feeds, {}, 'f32');
    const b = interpret(mixed.graph, feeds, {}, 'f32');
    expect(b.outputs.loss.data[0]).toBeCloseTo(a.outputs.loss.data[0], 5);
    for (const [name, v] of Object.entries(a.updates)) {
      let worst = 0;
      for (let i = 0; i < v.data.length; i++) worst = Math.max(worst, Math.abs(v.data[i] - b.updates[name].data[i]));
      expect(worst, name).toBeLessThan(1e-3);
    }
  });
});
