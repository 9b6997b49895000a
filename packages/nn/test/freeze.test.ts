// Frozen parameters on the reference interpreter: `freeze` / `requiresGrad(false)` build a parameter as state, so
// the step has no gradient, no optimizer state and no backward for it (fewer live nodes), its value stays
// bit-identical, the state dict still holds it, and a model with nothing left to train is a clear error.

import { optimize } from '@neura/egraph';
import { Graph, interpret, tensor } from '@neura/ir';
import { buildTrainingStep, mlp, type Sequential, TrainingStepError } from '@neura/nn';
import { adamW } from '@neura/optim';
import { describe, expect, it } from 'vitest';

const B = 4;
const feeds = { x: tensor([B, 3], [0.5, -1, 2, 1, 0.25, -0.5, -2, 1.5, 0.1, 0.3, 0.3, -0.7]), labels: tensor([B], [0, 1, 2, 0], 'i32') };

function step(model: Sequential): Graph {
  const g = new Graph();
  const loss = g.crossEntropy(model.forward(g, g.input('x', [B, 3])), g.input('labels', [B], 'i32'));
  buildTrainingStep(g, { loss, optimizer: adamW({ lr: 0.1 }) });
  return g;
}

const stateNames = (g: Graph) => g.leaves('state').map((n) => n.attrs.name);

describe('freezing parameters', () => {
  it('freezes a submodule, a single parameter or the whole tree, and unfreezes them', () => {
    const m = mlp([3, 4, 4, 3]);
    m.freeze('0');
    expect(m.namedParameters().filter(([, s]) => s.requiresGrad === false).map(([n]) => n)).toEqual(['0.weight', '0.bias']);
    m.unfreeze('0.bias').freeze('4.weight');
    expect(['0.weight', '0.bias', '2.weight', '4.weight'].map((n) => m.parameterRequiresGrad(n))).toEqual([false, true, true, false]);
    expect(m.parameterCount({ trainable: true })).toBe(m.parameterCount() - 12 - 12);
    m.requiresGrad(false);
    expect(m.parameterCount({ trainable: true })).toBe(0);
    m.unfreeze();
    expect(m.parameterCount({ trainable: true })).toBe(m.parameterCount());
    expect(() => m.freeze('7')).toThrow(/Sequential.freeze: '7' is neither a submodule nor a parameter \(submodules: 0, 1, 2, 3, 4;/);
    expect(() => m.freeze('0.wieght')).toThrow(/'0.wieght' is neither a submodule nor a parameter .*parameters: 0.weight, 0.bias/);
  });

  it('gives a frozen layer no gradient, no optimizer state and no backward nodes; its value stays bit-identical', () => {
    const open = step(mlp([3, 4, 3]));
    const model = mlp([3, 4, 3]).freeze('0');
    const frozen = step(model);
    expect(frozen.leaves('param').map((p) => p.attrs.name)).toEqual(['2.weight', '2.bias']);
    expect(stateNames(frozen)).toEqual(['0.weight', '0.bias', 'adamW.step', 'adamW.m/2.weight', 'adamW.v/2.weight', 'adamW.m/2.bias', 'adamW.v/2.bias']);
    expect(frozen.updates.map((u) => frozen.nodes[u.state].attrs)).not.toContainEqual(expect.objectContaining({ name: '0.weight' }));
    // the backward through layer 0 (dW0, db0, and dX of layer 2 feeding them) is not built: fewer live nodes and dispatches
    expect(frozen.live().length).toBeLessThan(open.live().length - 10);
    expect(optimize(frozen).report.dispatchesAfter).toBeLessThan(optimize(open).report.dispatchesAfter);

    const init = model.initialState();
    expect(Object.keys(init)).toEqual(['0.weight', '0.bias', '2.weight', '2.bias']); // the state dict still holds frozen params
    let state = { ...init };
    for (let s = 0; s < 3; s++) state = { ...state, ...interpret(frozen, feeds, state, 'f32').updates };
    expect(state['0.weight'].data).toEqual(init['0.weight'].data);
    expect(state['0.bias'].data).toEqual(init['0.bias'].data);
    expect(Array.from(state['2.weight'].data)).not.toEqual(Array.from(init['2.weight'].data));
  });

  it('refuses a step where every parameter is frozen, saying how to unfreeze', () => {
    const g = new Graph();
    const loss = g.crossEntropy(mlp([3, 4, 3]).freeze().forward(g, g.input('x', [B, 3])), g.input('labels', [B], 'i32'));
    expect(() => buildTrainingStep(g, { loss, optimizer: adamW({ lr: 0.1 }) })).toThrow(TrainingStepError);
    expect(() => buildTrainingStep(g, { loss, optimizer: adamW({ lr: 0.1 }) })).toThrow(/no parameters to train .*froze the model with freeze\(\) or requiresGrad\(false\), unfreeze\(\)/);
  });
});
