// The pure phases of compile, without a device: schedule, kernel plans, storage and the host index checks.

import { Graph, needsKernel } from '@neura/ir';
import { COMPAT_CAPS, generateKernel, KernelError } from '@neura/wgsl-kernels';
import { describe, expect, it } from 'vitest';
import { mlpTrainingGraph } from '../test/graphs.js';
import { planIndexChecks, planKernels, planStep, planStorage, scheduleStep } from './stepPlan.js';

const CAPS = { ...COMPAT_CAPS, maxStorageBuffersPerShaderStage: 8 };

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

  it('lays each role of a multi-tensor update out in one buffer and plans it as one dispatch reading an offset table', () => {
    const g = new Graph();
    const lr = g.input('lr', []);
    const x = g.input('x', [4]);
    const shapes = [[3, 5], [7], [2, 33]];
    const ins = [lr];
    const params = shapes.map((shape, i) => g.param(`p${i}`, shape));
    const bufs = shapes.map((shape, i) => g.state(`buf${i}`, shape));
    for (let i = 0; i < shapes.length; i++) ins.push(params[i], bufs[i], g.mul(g.tanh(params[i]), g.sum(x)));
    const I = (index: number) => ({ op: 'in', index }) as const;
    const next = { op: 'add', a: { op: 'mul', a: I(2), b: { op: 'const', value: 0.9 } }, b: I(3) } as const;
    const mt = g.node('pointwiseMultiTensor', ins, { exprs: [{ op: 'sub', a: I(1), b: { op: 'mul', a: next, b: I(0) } }, next], dtype: 'f32', shared: 1, shapes });
    shapes.forEach((_, i) => {
      g.update(params[i], i === 0 ? mt : g.node('pick', [mt], { index: 2 * i }));
      g.update(bufs[i], g.node('pick', [mt], { index: 2 * i + 1 }));
    });
    const plan = planStep(g, CAPS, generateKernel);
    expect(plan.arenas.size).toBe(1);
    expect(plan.plans.get(mt.id)?.dispatches.length).toBe(1);
    // roles p, buf, gradient; starts aligned to 256 bytes (64 elements): 15 → 64, 7 → 64, 66 → 128 elements
    const offsets = [0, 64, 128];
    const want = shapes.flatMap((shape, gi) => [[0, 15, 22][gi], shape.reduce((a, b) => a * b, 1), offsets[gi], offsets[gi], offsets[gi]]);
    expect([...(plan.tables.get(mt.id) ?? [])]).toEqual(want);
    const buf = (key: string) => plan.memory.bufferOf.get(key);
    expect(new Set(params.map((p) => buf(`n${p.id}`))).size).toBe(1);
  });
});
