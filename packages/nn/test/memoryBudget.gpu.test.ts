// A GPT training step under `compileTraining({ memoryBudget })` on a real WebGPU adapter: the optimizer schedules
// for memory and recomputes forward values in the backward (`after` views), the device allocates fewer bytes than
// without a budget, and loss and every parameter and optimizer state still match the interpreter running the
// unoptimized step.

import { MemoryBudgetError, optimize } from '@neura/egraph';
import { interpret, type TensorValue, tensor } from '@neura/ir';
import { buildTrainingStep, compileTraining, GPT } from '@neura/nn';
import { adamW } from '@neura/optim';
import { capsFor, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { registeredKernelOps } from '@neura/wgsl-kernels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const CONFIG = { layers: 2, heads: 2, width: 16, context: 8, vocab: 11, attention: 'op' } as const;
const [BATCH, SEQ] = [4, 8];
const opt = () => adamW({ lr: 1e-2, weightDecay: 0.01 });

/** The step graph compileTraining optimizes (same model, optimizer and limits). */
function stepGraph() {
  const t = new GPT(CONFIG).trainingGraph(BATCH, SEQ);
  buildTrainingStep(t.graph, { loss: t.loss, optimizer: opt() });
  return t.graph;
}

describe('compileTraining with a memory budget', () => {
  it('recomputes instead of storing, allocates less, and matches the interpreter', async () => {
    const limits = { limits: capsFor(device), customKernelOps: registeredKernelOps() };
    // the smallest plan the optimizer finds for this step: its error names it
    let smallest = 0;
    try {
      optimize(stepGraph(), { ...limits, memoryBudget: 1 });
    } catch (e) {
      expect(e).toBeInstanceOf(MemoryBudgetError);
      expect((e as Error).message).toMatch(/memoryBudget 1 B \(1 bytes\) cannot be met: the smallest plan found needs [\d.]+ kB \(\d+ bytes;/);
      smallest = (e as MemoryBudgetError).smallest;
    }
    expect(smallest).toBeGreaterThan(0);

    const n = BATCH * SEQ;
    const feeds: Record<string, TensorValue> = {
      tokens: tensor([BATCH, SEQ], Array.from({ length: n }, (_, i) => (i * 5 + 1) % CONFIG.vocab), 'i32'),
      targets: tensor([BATCH, SEQ], Array.from({ length: n }, (_, i) => (i * 3 + 2) % CONFIG.vocab), 'i32'),
    };
    const compileWith = (memoryBudget?: number) => {
      const t = new GPT(CONFIG).trainingGraph(BATCH, SEQ);
      return compileTraining(t.graph, { loss: t.loss, optimizer: opt(), device, ...(memoryBudget === undefined ? {} : { memoryBudget }) });
    };
    const plain = await compileWith();
    const budgeted = await compileWith(smallest);
    const memory = budgeted.report?.memory;
    expect(memory?.recomputed).toBeGreaterThan(0);
    expect(memory?.after).toBeLessThanOrEqual(smallest);
    expect(budgeted.graph.live().some((id) => budgeted.graph.nodes[id].op === 'after')).toBe(true);
    expect(plain.report?.memory).toBeUndefined();
    expect(budgeted.stats.bytesAllocated).toBeLessThan(plain.stats.bytesAllocated);

    const ref = new GPT(CONFIG).trainingGraph(BATCH, SEQ);
    buildTrainingStep(ref.graph, { loss: ref.loss, optimizer: opt() });
    let state: Record<string, TensorValue> = {};
    for (let s = 0; s < 2; s++) {
      const loss = await budgeted.step(feeds, { readLoss: true });
      const r = interpret(ref.graph, feeds, state, 'f64');
      expect(loss).toBeAllclose(r.outputs.loss.data, { rtol: 1e-4, atol: 1e-5 });
      state = { ...state, ...r.updates };
    }
    const gpuState = await budgeted.session.readState();
    for (const [name, v] of Object.entries(state)) expect(gpuState[name].data, name).toBeAllclose(v.data, { rtol: 5e-3, atol: 5e-5 });
    plain.dispose();
    budgeted.dispose();
  });

  it('refuses a budget with optimize: false or the measured mode, and a budget that is not a positive number', async () => {
    const t = new GPT(CONFIG).trainingGraph(BATCH, SEQ);
    await expect(compileTraining(t.graph, { loss: t.loss, optimizer: opt(), device, optimize: false, memoryBudget: 1e6 })).rejects.toThrow(/memoryBudget .*optimize: false/);
    await expect(compileTraining(t.graph, { loss: t.loss, optimizer: opt(), device, memoryBudget: -5 })).rejects.toThrow(/memoryBudget must be a positive, finite number of bytes, got -5/);
  });
});
