// Frozen parameters and LoRA on a real WebGPU adapter (the software adapter in CI): a frozen layer's values are
// bit-identical after training steps while the others move, the optimizer keeps no state for it, the compiled
// step runs fewer dispatches, and the session's state dict still holds it.

import { Graph, tensor } from '@neura/ir';
import { applyLora, compileTraining, loadLoraStateDict, loraStateDict, mlp, type Sequential, type TrainingSession } from '@neura/nn';
import { adamW } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const B = 8;
const x = Float32Array.from({ length: B * 6 }, (_, i) => Math.sin(i * 0.9));
const labels = Int32Array.from({ length: B }, (_, i) => (i * 5) % 4);

async function train(model: Sequential, steps: number): Promise<{ session: TrainingSession; before: Record<string, Float32Array>; after: Record<string, Float32Array> }> {
  const g = new Graph();
  const loss = g.crossEntropy(model.forward(g, g.input('x', [B, 6])), g.input('labels', [B], 'i32'));
  const session = await compileTraining(g, { loss, optimizer: adamW({ lr: 0.05 }), device });
  const read = async () => Object.fromEntries(Object.entries(await session.stateDict()).map(([n, v]) => [n, Float32Array.from(v.data)]));
  const before = await read();
  for (let s = 0; s < steps; s++) await session.step({ x, labels });
  return { session, before, after: await read() };
}

describe('frozen parameters on the device', () => {
  it('keeps a frozen layer bit-identical with no optimizer state, and runs fewer dispatches', async () => {
    const open = await train(mlp([6, 8, 4]), 0);
    const { session, before, after } = await train(mlp([6, 8, 4]).freeze('0'), 3);
    expect(Object.keys(after).sort()).toEqual(['0.bias', '0.weight', '2.bias', '2.weight']); // frozen params stay in the state dict
    expect(after['0.weight']).toEqual(before['0.weight']);
    expect(after['0.bias']).toEqual(before['0.bias']);
    expect(after['2.weight']).not.toEqual(before['2.weight']);
    const state = session.graph.leaves('state').map((n) => n.attrs.name);
    expect(state.filter((n) => n.startsWith('adamW.m/') || n.startsWith('adamW.v/')).sort()).toEqual(['adamW.m/2.bias', 'adamW.m/2.weight', 'adamW.v/2.bias', 'adamW.v/2.weight']);
    expect(session.stats.dispatchesPerStep).toBeLessThan(open.session.stats.dispatchesPerStep);
    session.dispose();
    open.session.dispose();
  });

  it('trains only the LoRA adapters of a wrapped model', async () => {
    const model = mlp([6, 8, 4]);
    applyLora(model, { rank: 2, alpha: 4, targets: ['0', '2'] });
    const { session, before, after } = await train(model, 3);
    for (const n of ['0.weight', '0.bias', '2.weight', '2.bias']) expect(after[n]).toEqual(before[n]);
    for (const n of ['0.lora_A.weight', '0.lora_B.weight', '2.lora_A.weight', '2.lora_B.weight']) expect(after[n]).not.toEqual(before[n]);
    // adapters alone, in PEFT's file layout, load back into the session (the base weights keep their values)
    const peft = loraStateDict(model, await session.stateDict(), { format: 'peft' });
    expect(peft['base_model.model.0.lora_A.weight'].shape).toEqual([2, 6]);
    await session.loadStateDict(loadLoraStateDict(model, { ...peft, 'base_model.model.0.lora_B.weight': tensor([8, 2], new Array(16).fill(0.5)) }, { format: 'peft' }), { strict: false });
    const now = await session.stateDict();
    expect(Array.from(now['0.lora_B.weight'].data)).toEqual(new Array(16).fill(0.5));
    expect(Float32Array.from(now['0.lora_A.weight'].data)).toEqual(after['0.lora_A.weight']);
    expect(Float32Array.from(now['0.weight'].data)).toEqual(before['0.weight']);
    session.dispose();
  });
});
