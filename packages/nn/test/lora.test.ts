// LoRA on the reference interpreter (f64): the wrapped model equals the base model at init, training moves only
// the adapters, merging reproduces the LoRA model's logits in a plain model; PEFT's formula against PyTorch
// float64 (forward and the gradients of A and B); bad options are typed errors.

import { gradByName } from '@neura/autograd';
import { Graph, GraphError, interpret, type TensorValue, tensor } from '@neura/ir';
import { applyLora, buildTrainingStep, Linear, loadLoraStateDict, loraStateDict, mergeLora, mlp, type Module, Sequential, unmergeLora } from '@neura/nn';
import { sgd } from '@neura/optim';
import { describe, expect, it } from 'vitest';

const B = 4;
const xs = Array.from({ length: B * 3 }, (_, i) => Math.sin(i * 1.7) * 1.5);
const ys = [0, 2, 1, 2];
const feeds = { x: tensor([B, 3], xs), labels: tensor([B], ys, 'i32') };

function logitsOf(model: Module, state: Record<string, TensorValue>): Float64Array | Float32Array {
  const g = new Graph();
  g.output('y', model.forward(g, g.input('x', [B, 3])));
  return interpret(g, { x: feeds.x }, state, 'f64').outputs.y.data as Float64Array;
}

describe('LoRA', () => {
  it('leaves the output unchanged at init, trains only A and B, and merges into a plain model with the same logits', () => {
    const base = mlp([3, 5, 3]);
    const lora = mlp([3, 5, 3]);
    expect(applyLora(lora, { rank: 2, alpha: 4, targets: ['0', '2'] })).toEqual(['0', '2']);
    const names = lora.namedParameters().map(([n, s]) => `${n}${s.requiresGrad === false ? ' (frozen)' : ''}`);
    expect(names).toEqual(['0.weight (frozen)', '0.bias (frozen)', '0.lora_A.weight', '0.lora_B.weight', '2.weight (frozen)', '2.bias (frozen)', '2.lora_A.weight', '2.lora_B.weight']);
    expect(lora.parameterCount({ trainable: true })).toBe(3 * 2 + 2 * 5 + 5 * 2 + 2 * 3);
    const init = lora.initialState();
    expect(Array.from(logitsOf(lora, init))).toEqual(Array.from(logitsOf(base, base.initialState()))); // B = 0

    const g = new Graph();
    const loss = g.crossEntropy(lora.forward(g, g.input('x', [B, 3])), g.input('labels', [B], 'i32'));
    const trained = buildTrainingStep(g, { loss, optimizer: sgd({ lr: 0.5 }) }).map((p) => p.attrs.name);
    expect(trained).toEqual(['0.lora_A.weight', '0.lora_B.weight', '2.lora_A.weight', '2.lora_B.weight']);
    let state = { ...init };
    for (let s = 0; s < 3; s++) state = { ...state, ...interpret(g, feeds, state, 'f64').updates };
    for (const n of ['0.weight', '0.bias', '2.weight', '2.bias']) expect(Array.from(state[n].data)).toEqual(Array.from(init[n].data));
    for (const n of trained) expect(Array.from(state[n].data)).not.toEqual(Array.from(init[n].data)); // A moves once B ≠ 0

    state = Object.fromEntries(Object.entries(state).map(([n, v]) => [n, { ...v, data: Float64Array.from(v.data) }])); // merge in f64 (W's array type)
    const merged = mergeLora(lora, state);
    expect(Object.keys(merged).sort()).toEqual(['0.bias', '0.weight', '2.bias', '2.weight']);
    expect(logitsOf(base, merged)).toBeAllclose(logitsOf(lora, state), { rtol: 1e-12, atol: 1e-12 });

    const adapters = loraStateDict(lora, state);
    expect(Object.keys(adapters)).toEqual(trained);
    const back = unmergeLora(lora, merged, adapters);
    for (const n of Object.keys(state)) expect(back[n].data).toBeAllclose(state[n].data, { atol: 1e-12 });
  });

  it('matches PEFT in PyTorch float64: forward and the gradients of A and B', () => {
    // /usr/bin/python3, torch 1.13, float64 (PEFT's lora.Linear.forward with dropout 0, scaling alpha/r = 4/2):
    //   x = [[0.5,-1,2],[1.5,0.25,-0.75]]; W = [[0.1,-0.2,0.3],[0.4,0.5,-0.6]]; b = [0.05,-0.1]
    //   A = [[0.2,-0.3,0.1],[0.7,0.05,-0.4]] (lora_A.weight [r, in]); B = [[0.3,-0.5],[0.25,0.6]] (lora_B.weight [out, r])
    //   y = x@W.T + b + 2*((x@A.T)@B.T); (y*c).sum().backward() with c = [[1,-2],[0.5,3]]
    const yTorch = [1.7600000000000002, -1.9, -1.3474999999999997, 2.7849999999999997];
    const gATorch = [2.5, 0.8500000000000001, -2.1500000000000004, 2.9499999999999993, 4.175, -9.125]; // [r, in]
    const gBTorch = [1.35, 0.3624999999999998, -1.5000000000000002, 10.174999999999999]; // [out, r]
    const f64 = (shape: number[], d: number[]): TensorValue => ({ shape, dtype: 'f32', data: Float64Array.from(d) });
    const lin = new Linear(3, 2);
    applyLora(lin, { rank: 2, alpha: 4, targets: () => true });
    const adapters = loadLoraStateDict(
      lin,
      { 'base_model.model.lora_A.weight': f64([2, 3], [0.2, -0.3, 0.1, 0.7, 0.05, -0.4]), 'base_model.model.lora_B.weight': f64([2, 2], [0.3, -0.5, 0.25, 0.6]) },
      { format: 'peft' },
    );
    expect(adapters['lora_A.weight'].shape).toEqual([3, 2]); // neura layout [in, r]
    const state = { weight: f64([3, 2], [0.1, 0.4, -0.2, 0.5, 0.3, -0.6]), bias: f64([2], [0.05, -0.1]), ...adapters };
    const g = new Graph();
    const y = lin.forward(g, g.input('x', [2, 3]));
    const loss = g.sum(g.mul(y, g.input('c', [2, 2])));
    const grads = gradByName(g, loss, ['lora_A.weight', 'lora_B.weight']);
    g.output('y', y);
    g.output('gA', grads.get('lora_A.weight') as never);
    g.output('gB', grads.get('lora_B.weight') as never);
    const r = interpret(g, { x: f64([2, 3], [0.5, -1, 2, 1.5, 0.25, -0.75]), c: f64([2, 2], [1, -2, 0.5, 3]) }, state, 'f64').outputs;
    expect(r.y.data).toBeAllclose(yTorch, { rtol: 1e-12, atol: 1e-12 });
    const tr = (v: number[], rows: number, cols: number) => Array.from({ length: v.length }, (_, k) => v[(k % rows) * cols + Math.floor(k / rows)]);
    expect(r.gA.data).toBeAllclose(tr(gATorch, 2, 3), { rtol: 1e-12, atol: 1e-12 });
    expect(r.gB.data).toBeAllclose(tr(gBTorch, 2, 2), { rtol: 1e-12, atol: 1e-12 });
    // and the PEFT export is the transposed torch layout again
    const peft = loraStateDict(lin, state, { format: 'peft' });
    expect(Array.from(peft['base_model.model.lora_A.weight'].data)).toEqual([0.2, -0.3, 0.1, 0.7, 0.05, -0.4]);
    expect(peft['base_model.model.lora_B.weight'].shape).toEqual([2, 2]);
  });

  it('initialises A as PEFT (kaiming-uniform, bound 1/√in) and B with zeros', () => {
    const m = mlp([16, 4]);
    applyLora(m, { rank: 8, targets: /^0$/ });
    const s = m.initialState();
    const a = Array.from(s['0.lora_A.weight'].data);
    expect(Math.max(...a.map(Math.abs))).toBeLessThanOrEqual(1 / 4);
    expect(Math.max(...a.map(Math.abs))).toBeGreaterThan(0.2);
    expect(Array.from(s['0.lora_B.weight'].data).every((v) => v === 0)).toBe(true);
  });

  it('matches list targets as PEFT (the name or its last parts, Linears only), and drops the adapter input only in training', () => {
    const m = new Sequential(mlp([3, 4]), mlp([4, 2]));
    expect(applyLora(m, { rank: 1, dropout: 0.5, targets: ['0'] })).toEqual(['0.0', '1.0']);
    const inputs = (train: boolean) => {
      const g = new Graph();
      g.output('y', m.train(train).forward(g, g.input('x', [2, 3])));
      return g.leaves('input').map((n) => n.attrs.name);
    };
    expect(inputs(true)).toEqual(['x', 'dropoutOffset']);
    expect(inputs(false)).toEqual(['x']);
  });

  it('rejects a bad rank, targets that match nothing, LoRA applied twice and a wrong adapter file', () => {
    expect(() => applyLora(mlp([3, 4]), { rank: 0, targets: ['0'] })).toThrow(/rank must be a positive integer, got 0/);
    expect(() => applyLora(mlp([3, 4]), { rank: -2, targets: ['0'] })).toThrow(GraphError);
    expect(() => applyLora(mlp([3, 4, 2]), { rank: 2, targets: ['q_proj'] })).toThrow(/targets \['q_proj'\] match no Linear of the model \(its Linears: 0, 2\)/);
    const twice = mlp([3, 4]);
    applyLora(twice, { rank: 2, targets: ['0'] });
    expect(() => applyLora(twice, { rank: 2, targets: ['0'] })).toThrow(/already has LoRA adapters \(on 0\); apply it once/);
    expect(() => loadLoraStateDict(twice, { '0.lora_A.weight': tensor([3, 2], [0, 0, 0, 0, 0, 0]) })).toThrow(/has no '0.lora_B.weight'/);
    expect(() => loadLoraStateDict(twice, { '0.lora_A.weight': tensor([2, 3], [0, 0, 0, 0, 0, 0]), '0.lora_B.weight': tensor([2, 4], new Array(8).fill(0)) })).toThrow(
      /'0.lora_A.weight' is \[2, 3\], expected \[3, 2\]/,
    );
    expect(() => mergeLora(mlp([3, 4]), {})).toThrow(/no LoRA adapters/);
  });
});
