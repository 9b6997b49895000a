// CNN layers from the public API against the reference interpreter: shapes, PyTorch's default init bounds,
// BatchNorm's batch statistics and running buffers computed by hand, gradients by finite differences with
// each layer mid-graph, and clear errors for inputs that do not fit.

import { checkGradients } from '@neura/autograd';
import { Graph, interpret, mulberry32, type Tensor, tensor } from '@neura/ir';
import { AdaptiveAvgPool2d, AvgPool2d, BatchNorm1d, BatchNorm2d, Conv2d, ConvTranspose2d, GroupNorm, MaxPool2d } from '@neura/nn';
import { describe, expect, it } from 'vitest';

const rand = (n: number, seed = 3) => {
  const r = mulberry32(seed);
  return Float64Array.from({ length: n }, () => r() * 4 - 1.5);
};

describe('Conv2d and ConvTranspose2d', () => {
  it('declare PyTorch-layout weights with kaiming_uniform(a=√5) bounds from the true fan-in', () => {
    const conv = new Conv2d(6, 8, [3, 5], { groups: 2 });
    const init = conv.initialState();
    expect(init.weight.shape).toEqual([8, 3, 3, 5]);
    const bound = 1 / Math.sqrt(3 * 3 * 5);
    for (const k of ['weight', 'bias']) {
      const m = Math.max(...Array.from(init[k].data, Math.abs));
      expect(m).toBeLessThanOrEqual(bound + 1e-7);
      expect(m).toBeGreaterThan(0.7 * bound);
    }
    const t = new ConvTranspose2d(4, 6, 3, { groups: 2 });
    expect(t.initialState().weight.shape).toEqual([4, 3, 3, 3]);
    expect(Math.max(...Array.from(t.initialState().weight.data, Math.abs))).toBeLessThanOrEqual(1 / Math.sqrt(27) + 1e-7);
  });

  it('compute output sizes like PyTorch (stride, padding, same, dilation, output padding)', () => {
    const g = new Graph();
    const x = g.input('x', [2, 4, 9, 8]);
    expect(new Conv2d(4, 5, 3, { stride: 2, padding: 1 }).forward(g, x, 'a').shape).toEqual([2, 5, 5, 4]);
    expect(new Conv2d(4, 5, 3, { padding: 'same', dilation: 2 }).forward(g, x, 'b').shape).toEqual([2, 5, 9, 8]);
    expect(new Conv2d(4, 4, [1, 3], { groups: 4, bias: false }).forward(g, x, 'c').shape).toEqual([2, 4, 9, 6]);
    expect(new ConvTranspose2d(4, 3, 3, { stride: 2, padding: 1, outputPadding: 1 }).forward(g, x, 'd').shape).toEqual([2, 3, 18, 16]);
  });

  it('say what is wrong with an input or a configuration', () => {
    const g = new Graph();
    expect(() => new Conv2d(3, 4, 3).forward(g, g.input('x', [1, 2, 5, 5]), 'conv1')).toThrow(/Conv2d\(3, 4\) 'conv1': input \[1, 2, 5, 5\] must be \[N, 3, H, W\]/);
    expect(() => new Conv2d(3, 4, 3, { groups: 2 })).toThrow(/groups 2 must divide both channel counts/);
    expect(() => new Conv2d(3, 4, 2, { padding: 'same' })).toThrow(/padding 'same' needs stride 1/);
  });

  it('differentiate as layers mid-graph (conv → transposed conv)', () => {
    const conv = new Conv2d(2, 4, 3, { stride: 2, padding: 1 });
    const up = new ConvTranspose2d(4, 2, 3, { stride: 2, padding: 1, outputPadding: 1 });
    const report = checkGradients((g) => {
      const x = g.param('x', [1, 2, 4, 4]);
      const y = up.forward(g, g.tanh(conv.forward(g, x, 'conv')), 'up');
      return g.sum(g.mul(g.input('u', y.shape), g.sin(y)));
    });
    expect(report.leaves.map((l) => l.name).sort()).toEqual(['conv.bias', 'conv.weight', 'up.bias', 'up.weight', 'x']);
    expect(report.ok, report.summary).toBe(true);
  });
});

describe('pooling layers', () => {
  it('pool with PyTorch defaults (stride = kernel)', () => {
    const g = new Graph();
    const x = g.input('x', [1, 2, 6, 7]);
    expect(new MaxPool2d(2).forward(g, x).shape).toEqual([1, 2, 3, 3]);
    expect(new AvgPool2d(3, { stride: 2, padding: 1 }).forward(g, x).shape).toEqual([1, 2, 3, 4]);
  });

  it('averages adaptive windows [⌊iH/Ho⌋, ⌈(i+1)H/Ho⌉) exactly, for uneven and even sizes', () => {
    const [h, w] = [5, 7];
    const data = rand(2 * h * w);
    for (const [ho, wo] of [
      [2, 3],
      [1, 1],
      [5, 7],
      [3, 4],
    ] as const) {
      const g = new Graph();
      g.output('y', new AdaptiveAvgPool2d([ho, wo]).forward(g, g.input('x', [1, 2, h, w])));
      const y = interpret(g, { x: tensor([1, 2, h, w], data) }).outputs.y;
      expect(y.shape).toEqual([1, 2, ho, wo]);
      const want: number[] = [];
      for (let c = 0; c < 2; c++)
        for (let i = 0; i < ho; i++)
          for (let j = 0; j < wo; j++) {
            const [y0, y1, x0, x1] = [Math.floor((i * h) / ho), Math.ceil(((i + 1) * h) / ho), Math.floor((j * w) / wo), Math.ceil(((j + 1) * w) / wo)];
            let s = 0;
            for (let a = y0; a < y1; a++) for (let b = x0; b < x1; b++) s += Math.fround(data[c * h * w + a * w + b]);
            want.push(s / ((y1 - y0) * (x1 - x0)));
          }
      expect(y.data).toBeAllclose(want, { atol: 1e-6 });
    }
    const report = checkGradients((g) => {
      const y = new AdaptiveAvgPool2d([2, 3]).forward(g, g.param('x', [1, 2, 5, 7]));
      return g.sum(g.mul(g.input('u', y.shape), g.tanh(y)));
    });
    expect(report.ok, report.summary).toBe(true);
  });
});

describe('BatchNorm', () => {
  const [n, c, h, w] = [3, 2, 2, 3];
  const x = rand(n * c * h * w, 7);
  const state = {
    weight: tensor([c], [1.5, 0.5]),
    bias: tensor([c], [0.1, -0.2]),
    running_mean: tensor([c], [0.3, -0.4]),
    running_var: tensor([c], [2, 0.5]),
    num_batches_tracked: tensor([], [4], 'i32'),
  };
  const stats = () => {
    const count = n * h * w;
    return [0, 1].map((ch) => {
      const vals: number[] = [];
      for (let i = 0; i < n; i++) for (let k = 0; k < h * w; k++) vals.push(Math.fround(x[(i * c + ch) * h * w + k]));
      const mean = vals.reduce((a, b) => a + b, 0) / count;
      const biased = vals.reduce((a, b) => a + (b - mean) ** 2, 0) / count;
      return { mean, biased, unbiased: (biased * count) / (count - 1) };
    });
  };
  const build = (training: boolean) => {
    const bn = new BatchNorm2d(c).train(training);
    const g = new Graph();
    g.output('y', bn.forward(g, g.input('x', [n, c, h, w])));
    return interpret(g, { x: tensor([n, c, h, w], x) }, state);
  };

  it('normalises by batch statistics in training mode and updates the running buffers (momentum 0.1, unbiased var)', () => {
    const r = build(true);
    const s = stats();
    const want = Array.from(x, (v, i) => {
      const ch = Math.floor(i / (h * w)) % c;
      return ((Math.fround(v) - s[ch].mean) / Math.sqrt(s[ch].biased + 1e-5)) * state.weight.data[ch] + state.bias.data[ch];
    });
    expect(r.outputs.y.data).toBeAllclose(want, { atol: 1e-5 });
    expect(r.updates.running_mean.data).toBeAllclose([0, 1].map((ch) => 0.9 * state.running_mean.data[ch] + 0.1 * s[ch].mean), { atol: 1e-6 });
    expect(r.updates.running_var.data).toBeAllclose([0, 1].map((ch) => 0.9 * state.running_var.data[ch] + 0.1 * s[ch].unbiased), { atol: 1e-6 });
    expect(Array.from(r.updates.num_batches_tracked.data)).toEqual([5]);
  });

  it('uses the running statistics in eval mode and updates nothing', () => {
    const r = build(false);
    const want = Array.from(x, (v, i) => {
      const ch = Math.floor(i / (h * w)) % c;
      return ((Math.fround(v) - state.running_mean.data[ch]) / Math.sqrt(state.running_var.data[ch] + 1e-5)) * state.weight.data[ch] + state.bias.data[ch];
    });
    expect(r.outputs.y.data).toBeAllclose(want, { atol: 1e-5 });
    expect(r.updates).toEqual({});
  });

  it('has the full gradient through the batch statistics (finite differences, mid-graph), 1d and 2d', () => {
    for (const [bn, shape] of [
      [new BatchNorm2d(2), [3, 2, 2, 2]],
      [new BatchNorm1d(3), [5, 3]],
      [new BatchNorm1d(2, { affine: false }), [2, 2, 3]],
    ] as const) {
      const report = checkGradients(
        (g) => {
          const y = bn.forward(g, g.mul(g.param('x', shape), 1.7), 'bn');
          return g.sum(g.mul(g.input('u', y.shape), g.tanh(y)));
        },
        // training mode never reads the running buffers, so their random values do not matter
        { wrt: ['x', ...bn.namedParameters('bn').map(([k]) => k)] },
      );
      expect(report.ok, report.summary).toBe(true);
    }
  });

  it('names its leaves as PyTorch does and rejects inputs that do not fit', () => {
    const bn = new BatchNorm2d(4);
    expect([...bn.stateDictSpec().keys()]).toEqual(['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']);
    expect(bn.stateDictSpec().get('num_batches_tracked')?.dtype).toBe('i32');
    const g = new Graph();
    expect(() => bn.forward(g, g.input('x', [2, 3, 4, 4]), 'bn1')).toThrow(/BatchNorm2d\(4\) 'bn1': input \[2, 3, 4, 4\] must be rank 4 with 4 channels on axis 1/);
    expect(() => new BatchNorm1d(4).forward(g, g.input('y', [1, 4]))).toThrow(/more than 1 value per channel/);
    expect(new BatchNorm1d(4, { trackRunningStats: false }).stateDictSpec().size).toBe(2);
  });
});

describe('GroupNorm', () => {
  it('matches the graph builder and differentiates', () => {
    const gn = new GroupNorm(2, 4);
    expect(gn.initialState().weight.data).toEqual(new Float32Array([1, 1, 1, 1]));
    const report = checkGradients((g) => {
      const y: Tensor = gn.forward(g, g.param('x', [2, 4, 2, 2]), 'gn');
      return g.sum(g.mul(g.input('u', y.shape), g.tanh(y)));
    });
    expect(report.ok, report.summary).toBe(true);
  });
});
