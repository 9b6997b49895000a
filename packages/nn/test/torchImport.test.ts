// Importing a PyTorch state dict written by Python (tooling/fixtures/safetensors_fixtures.py): torch's
// Linear weights [out, in] become neura's [in, out], and the imported model computes what the Python script
// computed, on the reference interpreter.

import { readFileSync } from 'node:fs';
import { Graph, interpret, tensor } from '@neura/ir';
import { decodeSafetensors, importTorchStateDict, mlp, TorchImportError } from '@neura/nn';
import { describe, expect, it } from 'vitest';

const torchFile = decodeSafetensors(readFileSync(new URL('../../../tooling/fixtures/safetensors/torch-mlp.safetensors', import.meta.url)));
const x = JSON.parse(torchFile.metadata.x) as number[][];
const y = JSON.parse(torchFile.metadata.y) as number[][];

function model() {
  const g = new Graph();
  const out = mlp([5, 4, 4, 3]).forward(g, g.input('x', [2, 5]));
  g.output('y', out);
  const expected = Object.fromEntries(g.leaves('param').map((p) => [p.attrs.name, { shape: p.shape, dtype: p.dtype }]));
  return { g, expected };
}
const linearWeight = (name: string) => name.endsWith('.weight');

describe('importTorchStateDict', () => {
  it('loads a torch nn.Sequential of Linear layers and reproduces its output', () => {
    const { g, expected } = model();
    const params = importTorchStateDict(torchFile.tensors, expected, { transposed: linearWeight });
    expect(params['0.weight'].shape).toEqual([5, 4]);
    const r = interpret(g, { x: tensor([2, 5], x.flat()) }, params, 'f64');
    expect(r.outputs.y.data).toBeAllclose(y.flat(), { rtol: 1e-5, atol: 1e-6 });
  });

  it('gives a different answer when the square layer is loaded untransposed (the transpose matters)', () => {
    const { g, expected } = model();
    const params = importTorchStateDict(torchFile.tensors, expected, { transposed: (n) => linearWeight(n) && n !== '2.weight' });
    const r = interpret(g, { x: tensor([2, 5], x.flat()) }, params, 'f64');
    expect(() => expect(r.outputs.y.data).toBeAllclose(y.flat(), { rtol: 1e-3, atol: 1e-4 })).toThrow();
  });

  it('maps names and lists every missing, unused and misshapen tensor', () => {
    const { expected } = model();
    const renamed = importTorchStateDict(
      Object.fromEntries(Object.entries(torchFile.tensors).map(([k, v]) => [`net.${k}`, v])),
      expected,
      { rename: (n) => n.replace(/^net\./, ''), transposed: linearWeight },
    );
    expect(Object.keys(renamed).sort()).toEqual(Object.keys(expected).sort());
    const bad = { ...torchFile.tensors, extra: tensor([1], [0]) } as Record<string, ReturnType<typeof tensor>>;
    delete bad['4.bias'];
    const err = (() => {
      try {
        importTorchStateDict(bad, expected);
      } catch (e) {
        return e as TorchImportError;
      }
    })();
    expect(err).toBeInstanceOf(TorchImportError);
    const text = err?.problems.join('\n') ?? '';
    expect(text).toMatch(/torch 'extra' \[1\] has no counterpart/);
    expect(text).toMatch(/the model's '4.bias' \[3\] is not in the state dict/);
    expect(text).toMatch(/torch '0.weight' \[4, 5\] → '0.weight' is \[4, 5\], the model expects \[5, 4\]/);
    expect(importTorchStateDict({ ...torchFile.tensors, extra: tensor([1], [0]) }, expected, { transposed: linearWeight, ignore: /^extra$/ })['4.bias'].shape).toEqual([3]);
  });
});

describe('importTorchStateDict with a Module', () => {
  it("transposes every Linear's weight by default and reproduces the torch output", () => {
    const net = mlp([5, 4, 4, 3]);
    const g = new Graph();
    g.output('y', net.forward(g, g.input('x', [2, 5])));
    const params = importTorchStateDict(torchFile.tensors, net);
    const r = interpret(g, { x: tensor([2, 5], x.flat()) }, params, 'f64');
    expect(r.outputs.y.data).toBeAllclose(y.flat(), { rtol: 1e-5, atol: 1e-6 });
  });
});
