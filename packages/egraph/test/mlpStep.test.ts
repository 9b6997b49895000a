// The whole MLP training step (forward, backward, Adam update) optimized by the e-graph: the fusions that decide
// the kernels appear, dispatches drop, and outputs and updates agree with the unoptimized graph. egraph may import
// only ir (the layer rules hold for tests too), so the backward pass and Adam are built here node for node as
// `@neura/autograd`'s VJPs and `@neura/optim`'s adam emit them (checked against both while they were written).
import { DEFAULT_FUSION_WIDTH, MAX_DEFAULT_POINTWISE_INPUTS, optimize, RuleError } from '@neura/egraph';
import type { Graph as GraphT, Node, TensorValue } from '@neura/ir';
import { Graph, interpret, leafName, multiTensorIllegality, mulberry32, tensor } from '@neura/ir';
import { describe, expect, it, vi } from 'vitest';

/** x[8,6] → linear(6→5) → relu → linear(5→3) → cross-entropy, plus backward and Adam when asked. */
function mlp(withStep: boolean): GraphT {
  const g = new Graph();
  const x = g.input('x', [8, 6]);
  const labels = g.input('labels', [8], 'i32');
  const w1 = g.param('w1', [6, 5]);
  const b1 = g.param('b1', [5], { kind: 'uniform', low: -0.5, high: 0.5, seed: 3 });
  const w2 = g.param('w2', [5, 3]);
  const b2 = g.param('b2', [3], { kind: 'uniform', low: -0.5, high: 0.5, seed: 4 });
  const z1 = g.linear(x, w1, b1);
  const h = g.relu(z1);
  const z2 = g.linear(h, w2, b2);
  const y = g.logSoftmax(z2);
  const loss = g.nll(y, labels);
  g.output('loss', loss);
  if (!withStep) return g;
  // backward, as autograd's VJPs build it
  const gz2 = g.node('logSoftmaxGrad', [y, g.node('nllGrad', [labels, g.constant(1)], { reduction: 'mean', classes: 3 })], { axis: 1 });
  const gb2 = g.sum(gz2, [0]);
  const gh = g.matmul(gz2, w2, { transB: true });
  const gw2 = g.matmul(h, gz2, { transA: true });
  const gz1 = g.mul(gh, g.cast(g.gt(z1, 0), 'f32'));
  const gb1 = g.sum(gz1, [0]);
  const gw1 = g.matmul(x, gz1, { transA: true });
  // Adam, as optim's adam builds it (lr 0.01, β1 0.9, β2 0.999, ε 1e-8, bias corrections from a step counter)
  const step = g.state('adam.step', []);
  const t = g.add(step, 1);
  g.update(step, t);
  const bc1 = g.sub(1, g.pow(0.9, t));
  const bc2 = g.sub(1, g.pow(0.999, t));
  const params = [w1, b1, w2, b2];
  [gw1, gb1, gw2, gb2].forEach((gp, i) => {
    const p = params[i];
    const m = g.state(`adam.m/${i}`, p.shape);
    const v = g.state(`adam.v/${i}`, p.shape);
    const m1 = g.add(g.mul(m, 0.9), g.mul(gp, 1 - 0.9));
    const v1 = g.add(g.mul(v, 0.999), g.mul(g.square(gp), 1 - 0.999));
    g.update(m, m1);
    g.update(v, v1);
    const direction = g.div(g.div(m1, bc1), g.add(g.sqrt(g.div(v1, bc2)), 1e-8));
    g.update(p, g.sub(p, g.mul(direction, 0.01)));
  });
  return g;
}

function feeds(): Record<string, TensorValue> {
  const r = mulberry32(7);
  return {
    x: tensor([8, 6], Array.from({ length: 48 }, () => r() * 2 - 1)),
    labels: tensor([8], Array.from({ length: 8 }, () => Math.floor(r() * 3)), 'i32'),
  };
}

function expectSameResults(before: GraphT, after: GraphT) {
  const f = feeds();
  const a = interpret(before, f);
  const b = interpret(after, f);
  expect(Object.keys(b.outputs).sort()).toEqual(Object.keys(a.outputs).sort());
  expect(Object.keys(b.updates).sort()).toEqual(Object.keys(a.updates).sort());
  for (const k of Object.keys(a.outputs)) expect(b.outputs[k].data).toBeAllclose(a.outputs[k].data, { rtol: 1e-9, atol: 1e-12 });
  for (const k of Object.keys(a.updates)) expect(b.updates[k].data).toBeAllclose(a.updates[k].data, { rtol: 1e-9, atol: 1e-12 });
}

const ops = (g: GraphT) => g.live().map((id) => g.nodes[id]);
const isBiasRelu = (n: Node) => n.op === 'fusedMatmul' && n.attrs.bias && n.attrs.activation === 'relu';

describe('optimize on an MLP', () => {
  it('fuses the forward pass into fusedMatmul(bias+relu), fusedMatmul(bias) and softmaxCrossEntropy', () => {
    const g = mlp(false);
    const { graph, report } = optimize(g);
    const nodes = ops(graph);
    expect(nodes.some(isBiasRelu)).toBe(true);
    expect(nodes.some((n) => n.op === 'softmaxCrossEntropy')).toBe(true);
    expect(nodes.filter((n) => n.op !== 'input' && n.op !== 'param' && n.op !== 'const' && n.op !== 'reshape')).toHaveLength(3);
    expect(report.dispatchesAfter).toBe(4); // three kernels; the loss runs two dispatches (row losses, then their sum)
    expectSameResults(g, graph);
  });

  it('fuses the whole training step: backward ops, one multi-tensor kernel updating every p, m and v', () => {
    const g = mlp(true);
    const { graph, report } = optimize(g);
    const nodes = ops(graph);
    expect(nodes.some(isBiasRelu)).toBe(true);
    expect(nodes.some((n) => n.op === 'softmaxCrossEntropy')).toBe(true);
    expect(nodes.some((n) => n.op === 'softmaxCrossEntropyGrad')).toBe(true);
    const multiOf = new Map<string, number>();
    for (const u of graph.updates) {
      const v = graph.nodes[u.value];
      const name = leafName(graph.nodes[u.state]) as string;
      if (name === 'adam.step') continue;
      expect(v.op, `update of ${name}`).toBe('pick');
      expect(graph.nodes[v.inputs[0]].op).toBe('pointwiseMultiTensor');
      // results g·3 + r: the group of a parameter holds its m and v too
      multiOf.set(name, v.inputs[0] * 100 + Math.floor((v as Node<'pick'>).attrs.index / 3));
    }
    for (const [i, p] of ['w1', 'b1', 'w2', 'b2'].entries()) {
      expect(multiOf.get(`adam.m/${i}`), p).toBe(multiOf.get(p));
      expect(multiOf.get(`adam.v/${i}`), p).toBe(multiOf.get(p));
    }
    // one kernel, four groups
    expect(new Set([...multiOf.values()].map((k) => Math.floor(k / 100))).size).toBe(1);
    expect(new Set(multiOf.values()).size).toBe(4);
    // the report names the rule that made the multi-tensor kernel, with its expressions
    const multiKernels = report.kernels.filter((k) => k.op === 'pointwiseMultiTensor');
    expect(multiKernels.length).toBe(1);
    expect(multiKernels[0].rules).toContain('update-multi-tensor');
    expect(report.format()).toContain('update-multi-tensor');
    expect(report.dispatchesBefore).toBe(78);
    expect(report.dispatchesAfter).toBeLessThanOrEqual(15);
    expectSameResults(g, graph);
  });
});

/** Storage buffers the kernel of a node binds at most: one per distinct operand plus one per result. */
const bindingsOf = (n: Node) =>
  n.op === 'pointwiseMultiTensor'
    ? n.attrs.shared + (n.inputs.length - n.attrs.shared) / n.attrs.shapes.length + 1 // shared, one arena per role, the table
    : new Set(n.inputs).size + (n.op === 'pointwiseMulti' ? n.attrs.exprs.length : 1);
const FUSED = ['pointwise', 'pointwiseMulti', 'pointwiseMultiTensor', 'fusedMatmul'];

describe('optimize under a device’s limits', () => {
  it('picks only kernels within maxStorageBuffersPerShaderStage, and the default limits pick wider ones', () => {
    const g = mlp(true);
    const wide = optimize(g).graph;
    // the default limits (8 buffers) let Adam's update read p, m, v, the gradient and the step, writing p, m, v
    expect(Math.max(...ops(wide).filter((n) => FUSED.includes(n.op)).map((n) => bindingsOf(n)))).toBeGreaterThan(4);
    const { graph } = optimize(g, { limits: { maxStorageBuffersPerShaderStage: 4, maxStorageBufferBindingSize: 1 << 27 } });
    for (const n of ops(graph)) if (FUSED.includes(n.op)) expect(bindingsOf(n), n.op).toBeLessThanOrEqual(4);
    expectSameResults(g, graph);
  });

  it('fuses pointwise work no wider than MAX_DEFAULT_POINTWISE_INPUTS inputs on a device with many more bindings', () => {
    const g = new Graph();
    let sum = g.input('x0', [4]);
    for (let i = 1; i < 24; i++) sum = g.add(sum, g.input(`x${i}`, [4]));
    g.output('y', sum);
    const { graph, report } = optimize(g, { limits: { maxStorageBuffersPerShaderStage: 64, maxStorageBufferBindingSize: 1 << 27 } });
    const fused = ops(graph).filter((n) => n.op === 'pointwise');
    expect(fused.length).toBeGreaterThan(1);
    for (const n of fused) expect(n.inputs.length).toBeLessThanOrEqual(MAX_DEFAULT_POINTWISE_INPUTS);
    // the schedule fuses at WebGPU's default width first; the fuse pass then runs again at the device's width
    expect(Math.max(...fused.map((n) => n.inputs.length))).toBeGreaterThan(DEFAULT_FUSION_WIDTH);
    expect(report.passes.map((p) => p.name)).toContain('fuse-wide');
    const feeds = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`x${i}`, tensor([4], [i, 1, -i, 0.5])]));
    expect(interpret(graph, feeds).outputs.y.data).toBeAllclose(interpret(g, feeds).outputs.y.data);
  });

  it("groups an update with its moments up to the device's storage buffers, though fusion stays MAX_DEFAULT_POINTWISE_INPUTS wide", () => {
    // AdamW with the learning rate in state: p's update reads p, g, m, v, the step and lr (6) and writes p, m, v (3)
    const g = new Graph();
    const p = g.param('p', [4, 3]);
    const grad = g.input('g', [4, 3]);
    const m = g.state('m', [4, 3]);
    const v = g.state('v', [4, 3]);
    const step = g.state('step', []);
    const lr = g.state('lr', []);
    const t = g.add(step, 1);
    g.update(step, t);
    const m1 = g.add(g.mul(m, 0.9), g.mul(grad, 0.1));
    const v1 = g.add(g.mul(v, 0.999), g.mul(g.square(grad), 0.001));
    g.update(m, m1);
    g.update(v, v1);
    const direction = g.div(g.div(m1, g.sub(1, g.pow(0.9, t))), g.add(g.sqrt(g.div(v1, g.sub(1, g.pow(0.999, t)))), 1e-8));
    g.update(p, g.sub(p, g.mul(lr, g.add(direction, g.mul(p, 0.01)))));
    const plan = (buffers: number) => optimize(g, { limits: { maxStorageBuffersPerShaderStage: buffers, maxStorageBufferBindingSize: 1 << 27 } }).graph;
    const kernelOf = (graph: GraphT, name: string) => {
      const u = graph.updates.find((x) => leafName(graph.nodes[x.state]) === name) as { value: number };
      const n = graph.nodes[u.value];
      return n.op === 'pick' ? n.inputs[0] : u.value;
    };
    const narrow = plan(8);
    expect(new Set(['p', 'm', 'v'].map((s) => kernelOf(narrow, s))).size).toBeGreaterThan(1);
    const wide = plan(16);
    expect(new Set(['p', 'm', 'v'].map((s) => kernelOf(wide, s))).size).toBe(1);
    for (const n of ops(wide)) if (n.op === 'pointwise') expect(n.inputs.length).toBeLessThanOrEqual(MAX_DEFAULT_POINTWISE_INPUTS);
    const f = { g: tensor([4, 3], Array.from({ length: 12 }, (_, i) => Math.sin(i))) };
    const state = { p: tensor([4, 3], Array.from({ length: 12 }, (_, i) => i / 10)), m: tensor([4, 3], new Array(12).fill(0.1)), v: tensor([4, 3], new Array(12).fill(0.2)), step: tensor([], [3]), lr: tensor([], [0.01]) };
    const a = interpret(g, f, state);
    for (const graph of [narrow, wide]) {
      const b = interpret(graph, f, state);
      for (const k of Object.keys(a.updates)) expect(b.updates[k].data, k).toBeAllclose(a.updates[k].data, { rtol: 1e-9, atol: 1e-12 });
    }
  });

  it('splits the multi-tensor update into groups whose operand roles fit maxStorageBufferBindingSize', () => {
    const g = mlp(true);
    // each parameter takes 256 bytes of a role's buffer (aligned starts): two fit in 600 bytes, four do not
    const limits = { maxStorageBuffersPerShaderStage: 8, maxStorageBufferBindingSize: 600 };
    const { graph } = optimize(g, { limits });
    const multis = ops(graph).filter((n) => n.op === 'pointwiseMultiTensor');
    expect(multis.map((n) => (n.op === 'pointwiseMultiTensor' ? n.attrs.shapes.length : 0))).toEqual([2, 2]);
    for (const n of multis) if (n.op === 'pointwiseMultiTensor') expect(multiTensorIllegality(n.attrs, n.inputs.length, limits)).toBeUndefined();
    expectSameResults(g, graph);
  });

  it('keeps a fused kernel out when one of its tensors is over maxStorageBufferBindingSize', () => {
    const g = mlp(true);
    const { graph } = optimize(g, { limits: { maxStorageBuffersPerShaderStage: 8, maxStorageBufferBindingSize: 100 } });
    // 8×5 f32 activations are 160 bytes: no fused kernel may bind them
    for (const n of ops(graph)) {
      if (!FUSED.includes(n.op)) continue;
      for (const t of [...n.inputs.map((i) => graph.nodes[i]), n]) expect(t.shape.reduce((a, b) => a * b, 1) * 4, n.op).toBeLessThanOrEqual(100);
    }
    expectSameResults(g, graph);
  });
});

describe('rules keep no state between runs', () => {
  it('optimizing the same step twice, and a copy of it, gives the same plan', () => {
    const print = (g: GraphT) => ops(g).map((n) => `${n.op}${JSON.stringify(n.attrs)}(${n.inputs.length})`).join('\n');
    const a = optimize(mlp(true)).graph;
    const g = mlp(true);
    const b = optimize(g).graph;
    const c = optimize(g).graph;
    expect(print(b)).toBe(print(a));
    expect(print(c)).toBe(print(a));
  });
});

describe('limits are iterations, e-nodes and moves, never wall-clock time', () => {
  const print = (g: GraphT) => ops(g).map((n) => `${n.op}${JSON.stringify(n.attrs)}(${n.inputs.length})`).join('\n');
  it('a machine so loaded that every clock read is a minute later gives the same plan, and the report names the bounds', () => {
    const calm = optimize(mlp(true));
    let t = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (t += 60_000));
    let loaded: ReturnType<typeof optimize>;
    try {
      loaded = optimize(mlp(true));
    } finally {
      clock.mockRestore();
    }
    expect(print(loaded.graph)).toBe(print(calm.graph));
    expect(loaded.report.egraph.stopReason).toBe(calm.report.egraph.stopReason);
    expect(loaded.report.egraph.stopReason).not.toBe('timeLimit');
    expect(loaded.report.search).toEqual(calm.report.search);
    expect(['converged', 'passLimit', 'evaluationLimit']).toContain(calm.report.search.stop);
    expect(calm.report.summary()).toContain(`extraction ${calm.report.search.evaluations} moves (${calm.report.search.stop})`);
  });
  it('a move budget stops the extractor with reason evaluationLimit (a valid, equivalent graph still)', () => {
    const g = mlp(true);
    const { graph, report } = optimize(g, { extract: { maxEvaluations: 3 } });
    expect(report.search).toEqual({ evaluations: 3, stop: 'evaluationLimit' });
    expectSameResults(g, graph);
  });
});

describe('optimize without some rules', () => {
  it('withoutRules leaves a rule out of every pass (one update kernel per parameter), and refuses an unknown name', () => {
    const g = mlp(true);
    const { graph, report } = optimize(g, { withoutRules: ['update-multi-tensor'] });
    expect(ops(graph).some((n) => n.op === 'pointwiseMultiTensor')).toBe(false);
    expect(ops(graph).filter((n) => n.op === 'pointwiseMulti').length).toBe(4);
    expect(report.passes.every((p) => p.report.applied['update-multi-tensor'] === undefined)).toBe(true);
    expectSameResults(g, graph);
    expect(() => optimize(g, { withoutRules: ['no-such-rule'] })).toThrow(/withoutRules names 'no-such-rule', which is not a rule/);
    expect(() => optimize(g, { withoutRules: ['no-such-rule'] })).toThrow(RuleError);
  });
});
