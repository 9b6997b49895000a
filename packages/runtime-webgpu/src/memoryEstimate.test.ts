// ir's memory estimate (what the e-graph weighs plans by under a memory budget) against the runtime's own step
// plan: the same liveness and best-fit packing, so the bytes must agree where no kernel needs scratch.

import { estimateGraphMemory, Graph } from '@neura/ir';
import { COMPAT_CAPS, generateKernel } from '@neura/wgsl-kernels';
import { describe, expect, it } from 'vitest';
import { mlpTrainingGraph } from '../test/graphs.js';
import { planStep } from './stepPlan.js';

const CAPS = { ...COMPAT_CAPS, maxStorageBuffersPerShaderStage: 8 };

describe('estimateGraphMemory', () => {
  it('allocates what the runtime plans for an MLP training step', () => {
    const { g } = mlpTrainingGraph(16, 24, 32, 5);
    const plan = planStep(g, CAPS, generateKernel);
    const scratch = [...plan.plans].filter(([, p]) => (p.scratch ?? []).length > 0).map(([id]) => g.nodes[id].op);
    expect(scratch).toEqual([]);
    expect(estimateGraphMemory(g).bytesAllocated).toBe(plan.memory.report.bytesAllocated);
  });

  it('stores `after` in its first operand\'s buffer and keeps its ordering operand alive until it', () => {
    const g = new Graph();
    const x = g.input('x', [64]);
    const a = g.exp(x);
    const d = g.tanh(x);
    const late = g.sin(g.after(a, d));
    g.output('y', g.add(late, d));
    const plan = planStep(g, CAPS, generateKernel);
    const after = g.nodes.find((n) => n.op === 'after');
    expect(plan.rootOf(after?.id as number)).toBe(a.id);
    expect(plan.plans.has(after?.id as number)).toBe(false);
    expect(estimateGraphMemory(g).bytesAllocated).toBe(plan.memory.report.bytesAllocated);
  });
});
