import { Graph } from '@neura/ir';
import type { NeuraDevice } from '@neura/runtime-webgpu';
import { describe, expect, it } from 'vitest';
import { planStep } from './compileStep.js';
import { TrainingStepError } from './errors.js';
import { memoryPlanCache } from './planCache.js';

// without the optimizer, planStep reads no device: these checks run before any GPU work
const device = {} as NeuraDevice;

describe('planStep', () => {
  it('keeps the graph as given with optimize: false', async () => {
    const g = new Graph();
    g.output('y', g.relu(g.input('x', [4])));
    const plan = await planStep(g, { device, optimize: false, who: 'compileInference' });
    expect(plan.graph).toBe(g);
    expect(plan.report).toBeUndefined();
  });

  it('refuses a memory budget or a plan cache without the optimizer, naming the caller', async () => {
    const g = new Graph();
    await expect(planStep(g, { device, optimize: false, memoryBudget: 1e6, who: 'compileInference' })).rejects.toThrow(TrainingStepError);
    await expect(planStep(g, { device, optimize: false, memoryBudget: 1e6, who: 'compileInference' })).rejects.toThrow(/^compileInference: memoryBudget .*optimize: false/);
    await expect(planStep(g, { device, optimize: false, planCache: memoryPlanCache(), who: 'compileTraining' })).rejects.toThrow(/^compileTraining: planCache .*optimize: false/);
  });
});
