// The LLaMA parts against PyTorch (float64): SwiGLU (MLP), grouped-query attention with RoPE
// (MultiheadAttention) and a whole 2-layer LLaMA-style model's loss, each with the gradient of every input and
// weight. Cases come from tooling/fixtures/torch_fixtures.py ("owner": "nn-llama"); skipped, saying so, when
// the JSON predates them.

import { grad } from '@neura/autograd';
import { Graph, interpret, type Tensor, type TensorValue } from '@neura/ir';
import { Llama, MLP, MultiheadAttention } from '@neura/nn';
import { describe, expect, it } from 'vitest';
import { type Encoded, torchFixtures, torchValue as value } from '../../../tooling/test/torchFixtures.js';

interface Fixture {
  name: string;
  owner?: string;
  attrs: Record<string, number | string>;
  inputs: Record<string, Encoded>;
  output: Encoded;
  weight: Encoded;
  grads: Record<string, Encoded>;
}

const EXPECTED = ['nn_swiglu', 'nn_gqa_rope_attention', 'nn_llama'];
const fixtures = torchFixtures<Fixture>('nn-llama');

/** Builds the fixture's module on its inputs; every float input is a leaf the gradient is taken for. */
function build(f: Fixture, g: Graph): Tensor {
  const a = f.attrs;
  const x = () => g.param('x', f.inputs.x.shape);
  switch (a.module) {
    case 'MLP':
      return new MLP(a.width as number, a.hidden as number, { kind: 'swiglu', bias: false }).forward(g, x());
    case 'MultiheadAttention':
      return new MultiheadAttention(a.width as number, { heads: a.heads as number, kvHeads: a.kvHeads as number, bias: false, rope: { base: a.ropeBase as number } }).forward(g, x());
    case 'Llama': {
      const m = new Llama({ vocab: a.vocab as number, layers: a.layers as number, heads: a.heads as number, kvHeads: a.kvHeads as number, width: a.width as number, hidden: a.hidden as number });
      const [b, t] = f.inputs.tokens.shape;
      return g.crossEntropy(m.logitsRows(g, g.input('tokens', [b, t], 'i32')), g.reshape(g.input('targets', [b, t], 'i32'), [b * t]));
    }
    default:
      throw new Error(`unknown module ${a.module}`);
  }
}

function run(f: Fixture) {
  const g = new Graph();
  const out = g.output('out', build(f, g));
  const loss = f.output.shape.length === 0 ? out : g.sum(g.mul(out, g.input('lossWeight', f.weight.shape)));
  const names = Object.keys(f.grads);
  const wrt = names.map((n) => {
    const t = g.byName(n);
    if (!t) throw new Error(`${f.name}: the module has no leaf '${n}'`);
    return t;
  });
  grad(g, loss, wrt).forEach((t, i) => {
    g.output(`grad/${names[i]}`, t);
  });
  const feeds: Record<string, TensorValue> = {};
  const state: Record<string, TensorValue> = {};
  for (const [n, e] of Object.entries(f.inputs)) (g.byName(n)?.op === 'input' ? feeds : state)[n] = value(e);
  if (f.output.shape.length > 0) feeds.lossWeight = value(f.weight);
  return interpret(g, feeds, state, 'f64');
}

describe.skipIf(fixtures.length === 0)('LLaMA parts against PyTorch (tooling/fixtures/torch-fixtures.json)', () => {
  for (const name of EXPECTED.filter((n) => !fixtures.some((f) => f.name === n)))
    it.skip(`${name}: no fixture yet (regenerate the JSON where PyTorch exists)`, () => {});
  for (const f of fixtures)
    it(`${f.attrs.module} matches PyTorch on ${f.name}: output and every gradient`, () => {
      const r = run(f);
      expect(r.outputs.out.data, `${f.name} forward`).toBeAllclose(f.output.data, { rtol: 1e-9, atol: 1e-11 });
      for (const [n, e] of Object.entries(f.grads)) expect(r.outputs[`grad/${n}`].data, `${f.name} d/d ${n}`).toBeAllclose(e.data, { rtol: 1e-8, atol: 1e-10 });
    });
});

describe.skipIf(fixtures.length > 0)('LLaMA PyTorch fixtures', () => {
  it('are skipped: the fixtures JSON has no "nn-llama" cases yet', () => {
    expect(fixtures).toEqual([]);
  });
});
