// The module tree from the public API: dotted names, registration errors, train/eval over the whole tree,
// shared leaves, host-side initial values equal to what a graph leaf declares, and state-dict validation
// (unknown, missing, wrong shape/dtype: one error listing all, nothing accepted).

import { attrsOf, Graph, type Init, initialValue, type Tensor, tensor } from '@neura/ir';
import { checkStateDict, Flatten, Linear, Module, ModuleList, mlp, paramName, ReLU, Sequential, StateDictError, Unflatten } from '@neura/nn';
import { describe, expect, it } from 'vitest';

class Block extends Module {
  readonly fc = this.registerModule('fc', new Linear(4, 4));
  readonly layers = this.registerModule('layers', new ModuleList([new Linear(4, 3), new Linear(3, 2, { bias: false })]));
  constructor() {
    super();
    this.registerBuffer('count', [], { kind: 'zeros' });
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    let h = g.relu(this.child('fc', g, x, prefix));
    for (let i = 0; i < this.layers.length; i++) h = this.layers.call(i, g, h, paramName(prefix, 'layers'));
    g.update(this.buffer(g, prefix, 'count'), g.add(this.buffer(g, prefix, 'count'), 1));
    return h;
  }
}

describe('the module tree', () => {
  it('names parameters and buffers with PyTorch-like dotted paths, and forward creates exactly those leaves', () => {
    const model = new Sequential(new Block(), new ReLU());
    const names = model.namedParameters().map(([n]) => n);
    expect(names).toEqual(['0.fc.weight', '0.fc.bias', '0.layers.0.weight', '0.layers.0.bias', '0.layers.1.weight']);
    expect(model.namedBuffers().map(([n]) => n)).toEqual(['0.count']);
    const g = new Graph();
    model.forward(g, g.input('x', [2, 4]), 'features');
    expect(g.leaves('param').map((p) => p.attrs.name)).toEqual(names.map((n) => `features.${n}`));
    expect(g.leaves('state').map((p) => p.attrs.name)).toEqual(['features.0.count']);
    expect(model.parameterCount()).toBe(16 + 4 + 12 + 3 + 6);
  });

  it('gives each leaf the init of its spec under its full name, as initialState computes it on the host', () => {
    const model = mlp([5, 3, 2]);
    const g = new Graph();
    model.forward(g, g.input('x', [1, 5]));
    const init = model.initialState();
    for (const p of g.leaves('param')) {
      const a = p.attrs;
      expect(initialValue(a.init, p.shape).data).toEqual(init[a.name].data);
    }
    // PyTorch's default: U(±1/√in) for weight and bias; different leaves get different draws
    const w = init['0.weight'].data;
    expect(Math.max(...w.map(Math.abs))).toBeLessThanOrEqual(1 / Math.sqrt(5));
    expect(Math.max(...w.map(Math.abs))).toBeGreaterThan(0.5 / Math.sqrt(5));
    expect(init['0.bias'].data).not.toEqual(init['2.bias'].data.slice(0, 3));
  });

  it('shares the leaves of a module used twice in one graph', () => {
    const fc = new Linear(3, 3);
    const g = new Graph();
    const x = g.input('x', [1, 3]);
    fc.forward(g, fc.forward(g, x, 'fc'), 'fc');
    expect(g.leaves('param')).toHaveLength(2);
  });

  it('refuses a duplicate or invalid member name and an unregistered leaf', () => {
    class Bad extends Module {
      constructor(which: string) {
        super();
        this.registerParameter('weight', [2], { kind: 'zeros' });
        if (which === 'dup') this.registerBuffer('weight', [2]);
        if (which === 'dot') this.registerModule('a.b', new ReLU());
      }
      forward(g: Graph, x: Tensor, prefix?: string): Tensor {
        return g.mul(x, this.param(g, prefix, 'wieght'));
      }
    }
    expect(() => new Bad('dup')).toThrow(/'weight' is already registered/);
    expect(() => new Bad('dot')).toThrow(/'a.b' is not a valid member name/);
    const g = new Graph();
    expect(() => new Bad('').forward(g, g.input('x', [2]))).toThrow(/no parameter 'wieght' was registered \(have: weight\)/);
  });

  it('switches the whole tree between training and evaluation mode', () => {
    const model = new Sequential(new Block(), new Sequential(new ReLU()));
    expect(model.eval().namedModules().every(([, m]) => !m.training)).toBe(true);
    expect(model.train().namedModules().every(([, m]) => m.training)).toBe(true);
    expect(model.namedModules().map(([n]) => n)).toEqual(['', '0', '0.fc', '0.layers', '0.layers.0', '0.layers.1', '1', '1.0']);
  });

  it('flattens and unflattens axes, and rejects shapes that do not fit', () => {
    const g = new Graph();
    const x = g.input('x', [2, 3, 4, 5]);
    expect(new Flatten().forward(g, x).shape).toEqual([2, 60]);
    expect(new Flatten(0, 1).forward(g, x).shape).toEqual([6, 4, 5]);
    expect(new Unflatten(1, [2, -1]).forward(g, new Flatten().forward(g, x)).shape).toEqual([2, 2, 30]);
    expect(() => new Unflatten(1, [7, -1]).forward(g, x)).toThrow(/does not split axis 1 of extent 3/);
    expect(() => new Flatten(3, 1).forward(g, x)).toThrow(/do not fit shape/);
  });
});

describe('checkStateDict', () => {
  const spec = new Sequential(new Linear(2, 3), new Block()).stateDictSpec();
  // Block expects 4 features, so this model is not runnable; its spec is all that matters here
  const good = Object.fromEntries([...spec].map(([n, s]) => [n, initialValue({ kind: 'zeros' }, s.shape, s.dtype)]));

  it('accepts a dict with every name, shape and dtype right', () => {
    expect(() => checkStateDict(spec, good)).not.toThrow();
  });

  it('lists unknown, missing and mismatched entries in one typed error', () => {
    const bad = { ...good, '0.wieght': good['0.weight'], '0.bias': tensor([4], [0, 0, 0, 0]), '1.count': tensor([], [0], 'i32') };
    delete (bad as Record<string, unknown>)['0.weight'];
    let err: unknown;
    try {
      checkStateDict(spec, bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StateDictError);
    const e = err as StateDictError;
    expect(e.unknown).toEqual(['0.wieght']);
    expect(e.missing).toEqual(['0.weight']);
    expect(e.mismatched).toEqual(['0.bias', '1.count']);
    expect(e.message).toMatch(/'0.bias': expected \[3\]:f32, got \[4\]:f32/);
    expect(e.message).toMatch(/'1.count': expected \[\]:f32, got \[\]:i32/);
    expect(e.message).toMatch(/Nothing was loaded/);
  });

  it('allows missing names when not strict, never unknown ones', () => {
    expect(() => checkStateDict(spec, { '0.weight': good['0.weight'] }, { strict: false })).not.toThrow();
    expect(() => checkStateDict(spec, { nope: good['0.weight'] }, { strict: false })).toThrow(/unknown: nope/);
  });

  it('rejects data of the wrong length or array type', () => {
    const short = { ...good, '0.weight': { shape: [2, 3], dtype: 'f32' as const, data: new Float32Array(5) } };
    expect(() => checkStateDict(spec, short)).toThrow(/'0.weight': expected \[2, 3\]:f32, got \[2, 3\]:f32 with 5 values/);
    const ints = { ...good, '0.weight': { shape: [2, 3], dtype: 'f32' as const, data: new Int32Array(6) } };
    expect(() => checkStateDict(spec, ints)).toThrow(/in a Int32Array/);
  });
});

describe('Graph.param default initialisation', () => {
  it('takes the fan-in of a conv weight [O, C, KH, KW] as C·KH·KW and of a matrix [in, out] as in', () => {
    const g = new Graph();
    const high = (init: Init) => (init.kind === 'uniform' ? init.high : Number.NaN);
    expect(high(attrsOf(g.param('conv', [16, 3, 5, 5]), 'param').init)).toBeCloseTo(1 / Math.sqrt(75), 12);
    expect(high(attrsOf(g.param('lin', [300, 10]), 'param').init)).toBeCloseTo(1 / Math.sqrt(300), 12);
  });

  // A bad init used to give zeros (unknown kind) or NaN (uniform without bounds) silently.
  it('rejects an unknown init kind or a uniform without valid bounds, naming the parameter', () => {
    class Bad extends Module {
      constructor(init: unknown) {
        super();
        this.registerParameter('w', [2], init as Init);
      }
      forward(_g: Graph, x: Tensor): Tensor {
        return x;
      }
    }
    expect(() => new Bad({ kind: 'xavier' }).initialState('m')).toThrow(/'m\.w'.*unknown init kind "xavier".*zeros, ones, fill, uniform, normal/);
    expect(() => new Bad({ kind: 'uniform', seed: 1 }).initialState('m')).toThrow(/'m\.w'.*uniform init needs finite bounds/);
    expect(() => new Bad({ kind: 'uniform', low: 1, high: 0, seed: 1 }).initialState()).toThrow(/'w'.*low <= high/);
    expect(() => new Bad({ kind: 'uniform', low: 0, high: Number.POSITIVE_INFINITY, seed: 1 }).initialState()).toThrow(/'w'/);
    expect(() => initialValue({ kind: 'bogus' } as unknown as Init, [1], 'f32', 'p')).toThrow(/'p'.*"bogus"/);
    expect(new Bad({ kind: 'uniform', low: 0, high: 0, seed: 1 }).initialState().w.data).toEqual(new Float32Array(2));
  });
});
