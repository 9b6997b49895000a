// The pure phases of compile, without a device: schedule, kernel plans, storage and the host index checks.

import { Graph, needsKernel } from '@neura/ir';
import { DEFAULT_CAPS, generateKernel, KernelError } from '@neura/wgsl-kernels';
import { describe, expect, it } from 'vitest';
import { mlpTrainingGraph } from '../test/graphs.js';
import { planIndexChecks, planKernels, planStep, planStorage, scheduleStep } from './stepPlan.js';

const CAPS = { ...DEFAULT_CAPS, maxStorageBuffersPerShaderStage: 8 };

describe('stepPlan phases', () => {
  it('plans a kernel for every live node that needs one, and none for leaves and aliases', () => {
    const { g } = mlpTrainingGraph(4, 6, 8, 3);
    const plan = planStep(g, CAPS, generateKernel);
    for (const id of plan.order) expect(plan.plans.has(id), `${g.nodes[id].op} #${id}`).toBe(needsKernel(g.nodes[id].op));
    expect(plan.memory.report.bytesAllocated).toBeLessThanOrEqual(plan.memory.report.bytesIfUnshared);
    // the SGD updates are written in place: each updated param is its value's root
    for (const u of g.updates) if (plan.writes.has(u.value)) expect(plan.rootOf(u.value)).toBe(u.state);
  });

  it('stores a reshape in its input\'s buffer and checks labels fed through it', () => {
    const g = new Graph();
    const logits = g.input('logits', [4, 3]);
    const labels = g.input('labels', [2, 2], 'i32');
    g.output('loss', g.nll(g.logSoftmax(logits), g.reshape(labels, [4])));
    const s = scheduleStep(g);
    const plans = planKernels(g, s, CAPS, generateKernel);
    const { rootOf } = planStorage(g, s, plans);
    const reshape = g.nodes.find((n) => n.op === 'reshape');
    expect(rootOf(reshape?.id as number)).toBe(labels.id);
    expect(planIndexChecks(g, s.order, rootOf).get(labels.id)).toEqual([{ role: 'label', bound: 3, what: 'classes of nll' }]);
  });

  it('a kernel error names the node and where it was built', () => {
    const g = new Graph();
    g.output('y', g.exp(g.input('x', [300])));
    const tiny = { ...CAPS, maxStorageBufferBindingSize: 1024 };
    expect(() => planStep(g, tiny, generateKernel)).toThrow(KernelError);
    expect(() => planStep(g, tiny, generateKernel)).toThrow(/^exp node \d+ \(built at .*stepPlan\.test\.ts:\d+:\d+\): /);
  });
});
