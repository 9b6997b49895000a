// BatchNorm1d/2d against torch.nn.BatchNorm1d/2d (float64): forward, gradients of x, weight and bias, and the
// buffers after the call (running mean/var with momentum and the unbiased variance, num_batches_tracked),
// in training and eval mode. Cases come from tooling/fixtures/torch_fixtures.py ("owner": "nn"); skipped,
// saying so, when the JSON predates them.

import { grad } from '@neura/autograd';
import { Graph, interpret } from '@neura/ir';
import { BatchNorm1d, BatchNorm2d } from '@neura/nn';
import { describe, expect, it } from 'vitest';
import { type Encoded, torchFixtures, torchValue as value } from '../../../tooling/test/torchFixtures.js';

interface Fixture {
  name: string;
  owner?: string;
  attrs: { training: boolean; momentum: number; eps: number; module: string };
  inputs: Record<string, Encoded>;
  output: Encoded;
  weight: Encoded;
  grads: Record<string, Encoded>;
  state: Record<string, Encoded>;
}

const EXPECTED = ['batch_norm2d_train', 'batch_norm2d_train_momentum', 'batch_norm2d_eval', 'batch_norm1d_train', 'batch_norm1d_train_3d', 'batch_norm1d_eval'];
const fixtures = torchFixtures<Fixture>('nn');

function run(f: Fixture) {
  const { x: xe, ...moduleState } = f.inputs;
  const c = xe.shape[1];
  const Bn = f.attrs.module === 'BatchNorm2d' ? BatchNorm2d : BatchNorm1d;
  const bn = new Bn(c, { momentum: f.attrs.momentum, eps: f.attrs.eps }).train(f.attrs.training);
  const g = new Graph();
  const x = g.param('x', xe.shape);
  const y = g.output('y', bn.forward(g, x));
  const loss = g.sum(g.mul(y, g.input('lossWeight', f.weight.shape)));
  const wrt = [x, g.byName('weight'), g.byName('bias')].map((t) => t as NonNullable<typeof t>);
  grad(g, loss, wrt).forEach((t, i) => {
    g.output(`grad/${['x', 'weight', 'bias'][i]}`, t);
  });
  const state = Object.fromEntries(Object.entries(moduleState).map(([k, v]) => [k, value(v)]));
  return interpret(g, { lossWeight: value(f.weight) }, { ...state, x: value(xe) }, 'f64');
}

describe.skipIf(fixtures.length === 0)('BatchNorm against PyTorch (tooling/fixtures/torch-fixtures.json)', () => {
  for (const name of EXPECTED.filter((n) => !fixtures.some((f) => f.name === n)))
    it.skip(`${name}: no fixture yet (regenerate the JSON where PyTorch exists)`, () => {});
  for (const f of fixtures)
    it(`matches torch.nn.${f.attrs.module} on ${f.name}: output, gradients and buffers`, () => {
      const r = run(f);
      expect(r.outputs.y.data, `${f.name} forward`).toBeAllclose(f.output.data, { rtol: 1e-9, atol: 1e-11 });
      for (const [n, e] of Object.entries(f.grads)) expect(r.outputs[`grad/${n}`].data, `${f.name} d/d ${n}`).toBeAllclose(e.data, { rtol: 1e-8, atol: 1e-10 });
      for (const [n, e] of Object.entries(f.state)) {
        const got = f.attrs.training ? r.updates[n] : undefined;
        // eval mode leaves the buffers as they were (no update is declared)
        expect((got ?? value(f.inputs[n])).data, `${f.name} buffer ${n}`).toBeAllclose(e.data, { rtol: 1e-9, atol: 1e-12 });
      }
      if (!f.attrs.training) expect(Object.keys(r.updates)).toEqual([]);
    });
});

describe.skipIf(fixtures.length > 0)('BatchNorm PyTorch fixtures', () => {
  it('are skipped: the fixtures JSON has no "nn" cases yet', () => {
    expect(fixtures).toEqual([]);
  });
});
