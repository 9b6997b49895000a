// The optimizer's report and debug output, the analysis's merge check, and the cost model's legality.
import { EGraph, OptimizeReport, TensorAnalysis, constENode, costDefaults, opCost, optimize } from '@neura/egraph';
import { Graph } from '@neura/ir';
import { afterEach, describe, expect, it, vi } from 'vitest';

function small() {
  const g = new Graph();
  const x = g.input('x', [4, 3]);
  const w = g.param('w', [3, 2]);
  const y = g.relu(g.add(g.matmul(x, w), g.param('b', [2])));
  g.output('y', g.mul(g.sigmoid(y), 2));
  return g;
}

describe('OptimizeReport', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('summarises the run on one line and lists fused kernels with their rules', () => {
    const { report } = optimize(small());
    expect(report).toBeInstanceOf(OptimizeReport);
    // one kernel: the matmul with bias, relu, sigmoid and the scale as its epilogue
    expect(report.summary()).toMatch(/^e-graph: \d+ e-nodes, \d+ e-classes, \d+ iterations \(saturated\) in \d+ ms; extraction \d+ moves \(converged\); dispatches 5 → 1; bytes .+ → .+$/);
    const fm = report.kernels.find((k) => k.op === 'matmulEpilogue');
    expect(fm?.epilogue).toBe('(mul (sigmoid (relu (add $0 $1))) 2)');
    expect(fm?.rules).toEqual(['matmul-bias', 'matmul-epilogue', 'matmul-relu', 'pointwise-lift']);
    expect(report.egraph.ruleHits['matmul-bias']).toBe(1);
    expect(report.format().split('\n').length).toBeGreaterThan(4);
    expect(report.bytesAfter).toBeLessThan(report.bytesBefore);
    expect(report.dot).toBeUndefined();
  });

  it('NEURA_DEBUG=2 prints the rules per kernel; 3 adds a DOT dump of the e-graph', () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.stubEnv('NEURA_DEBUG', '2');
    optimize(small());
    expect(String(err.mock.calls[0][0])).toContain('matmul-bias, matmul-epilogue, matmul-relu');
    vi.stubEnv('NEURA_DEBUG', '3');
    const { report } = optimize(small());
    expect(report.dot).toMatch(/^digraph egraph \{/);
    expect(err.mock.calls.some((c) => String(c[0]).startsWith('digraph'))).toBe(true);
  });
});

describe('OptimizeReport attention lines', () => {
  it('lists seq-major attention kernels with the layout and fusion rules that made them', () => {
    const g = new Graph();
    const split = (name: string) => g.transpose(g.input(name, [2, 5, 3, 8]), [0, 2, 1, 3]); // [B, T, H, D] → [B, H, T, D]
    const [q, k, v] = [split('q'), split('k'), split('v')];
    const attrs = { causal: true, scale: 0.5 };
    g.output('o', g.transpose(g.attention(q, k, v, attrs), [0, 2, 1, 3]));
    g.output('lse', g.transpose(g.node('attentionLse', [q, k], attrs), [0, 2, 1]));
    const { report, graph } = optimize(g);
    expect(graph.live().filter((id) => graph.nodes[id].op === 'transpose')).toEqual([]);
    const k0 = report.kernels.find((x) => x.op === 'attentionWithLse');
    expect(k0?.expr).toMatch(/^seq-major/);
    expect(k0?.rules).toEqual(expect.arrayContaining(['attention-seq-major', 'attention-lse']));
    expect(report.format()).toMatch(/attentionWithLse \[2, 5, 3, 8\] 3 in seq-major .*← .*attention-seq-major/);
  });

  it('lists attention reading q, k, v as head windows of a fused projection, with no slice left', () => {
    const g = new Graph();
    const [b, t, h, d] = [2, 5, 3, 8];
    const heads = (x: ReturnType<Graph['input']>) => g.transpose(g.reshape(x, [b, t, h, d]), [0, 2, 1, 3]);
    const [q, k, v] = g.split(g.input('qkv', [b * t, 3 * h * d]), 3, -1).map(heads);
    const attrs = { causal: true, scale: 0.5 };
    g.output('o', g.transpose(g.attention(q, k, v, attrs), [0, 2, 1, 3]));
    g.output('lse', g.node('attentionLse', [q, k], attrs));
    const { report, graph } = optimize(g);
    expect(graph.live().filter((id) => graph.nodes[id].op === 'slice')).toEqual([]);
    const k0 = report.kernels.find((x) => x.op === 'attentionWithLse');
    expect(k0?.expr).toMatch(/head windows at \[0, 3, 6\]/);
    expect(k0?.rules).toEqual(expect.arrayContaining(['attention-head-window', 'attention-seq-major', 'attention-lse']));
  });

  it('lists the gradients of a fused projection written into one result, with no concat or slice left', () => {
    const g = new Graph();
    const [b, t, h, d] = [2, 5, 3, 8];
    const heads = (x: ReturnType<Graph['input']>) => g.transpose(g.reshape(x, [b, t, h, d]), [0, 2, 1, 3]);
    const [q, k, v] = g.split(g.input('qkv', [b * t, 3 * h * d]), 3, -1).map(heads);
    const attrs = { causal: true, scale: 0.5 };
    const [dO, delta] = [heads(g.input('dO', [b * t, h * d])), g.transpose(g.input('delta', [b, t, h]), [0, 2, 1])];
    const lse = g.node('attentionLse', [q, k], attrs);
    const rows = (x: ReturnType<Graph['input']>) => g.reshape(g.transpose(x, [0, 2, 1, 3]), [b * t, h * d]);
    g.output('dqkv', g.concat((['q', 'k', 'v'] as const).map((wrt) => rows(g.node('attentionGrad', [q, k, v, dO, lse, delta], { ...attrs, wrt }))), 1));
    const { report, graph } = optimize(g);
    expect(graph.live().filter((id) => graph.nodes[id].op === 'concat' || graph.nodes[id].op === 'slice')).toEqual([]);
    const k0 = report.kernels.find((x) => x.op === 'attentionGradQKV');
    expect(k0?.expr).toMatch(/dq, dk, dv written into one \[\.\.\., T, 3H, D\] \(concat folded\).*head windows at \[0, 3, 6\]/);
    expect(k0?.rules).toEqual(expect.arrayContaining(['attention-grad-qkv', 'attention-seq-major']));
  });
});

describe('TensorAnalysis', () => {
  it('refuses to merge classes of different types, naming both', () => {
    const eg = new EGraph(new TensorAnalysis());
    const a = eg.add(constENode(1, [2, 3], 'f32'));
    const b = eg.add(constENode(1, [3], 'f32'));
    expect(() => eg.union(a, b)).toThrow(/\[2, 3\]:f32.*\[3\]:f32/);
  });

  it('knows the constant of a class computed from constants', () => {
    const eg = new EGraph(new TensorAnalysis());
    const two = eg.add(constENode(2, [], 'f32'));
    const sq = eg.add({ op: 'sqrt', children: [eg.add({ op: 'mul', children: [two, two] })] });
    expect(eg.eclass(sq).data).toEqual({ shape: [], dtype: 'f32', constant: 2 });
  });
});

describe('cost model', () => {
  const o = costDefaults();
  const t = (shape: number[]) => ({ shape, dtype: 'f32' as const });
  it('charges a dispatch plus bytes plus flops, and nothing for leaves and reshapes', () => {
    const c = opCost({ op: 'add', children: [0, 1] }, [t([1000]), t([1000])], t([1000]), o);
    expect(c).toBeCloseTo(o.dispatchCost + 12_000 / o.bytesPerUnit + 1000 / o.flopsPerUnit, 4);
    expect(opCost({ op: 'reshape', data: { shape: [10, 100] }, children: [0] }, [t([1000])], t([10, 100]), o)).toBeLessThan(1e-3);
  });
  it('makes a fused kernel over the storage-buffer or binding-size limits illegal (Infinity)', () => {
    const pw = { op: 'pointwise', data: { expr: '{"op":"in","index":0}', dtype: 'f32' }, children: [] };
    expect(opCost(pw, Array.from({ length: 8 }, () => t([4])), t([4]), o)).toBe(Number.POSITIVE_INFINITY);
    expect(opCost(pw, [t([64 * 1024 * 1024])], t([64 * 1024 * 1024]), o)).toBe(Number.POSITIVE_INFINITY);
  });
});
