// The whole pipeline against the oracle: a training step built by nn, differentiated by autograd, updated by
// optim, optimized by the e-graph and run on a real WebGPU adapter must match the reference interpreter
// running the *unoptimized* step graph, step after step (params and moments included).

import { grad } from '@neura/autograd';
import { optimize } from '@neura/egraph';
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { buildTrainingStep, compileTraining, mlp, type TrainingSession } from '@neura/nn';
import { adam, adamW, type Optimizer, sgd } from '@neura/optim';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const B = 8;
const F = 20;
const C = 10;

function build(): { g: Graph; loss: ReturnType<Graph['crossEntropy']> } {
  const g = new Graph();
  const x = g.input('x', [B, F]);
  const labels = g.input('labels', [B], 'i32');
  const loss = g.crossEntropy(mlp([F, 16, C]).forward(g, x), labels);
  return { g, loss };
}

function batch(seed: number): { x: Float32Array; labels: Int32Array } {
  let s = seed;
  const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  return { x: Float32Array.from({ length: B * F }, r), labels: Int32Array.from({ length: B }, (_, i) => (i * 7 + seed) % C) };
}

/** Runs `steps` steps (batches from seed `firstSeed` on) on the device and in the f64 interpreter on `ref`: same losses, same final state. */
async function matchesInterpreter(session: TrainingSession, ref: Graph, steps: number, firstSeed: number) {
  let state: Record<string, TensorValue> = {};
  for (let s = 0; s < steps; s++) {
    const b = batch(s + firstSeed);
    const gpuLoss = await session.step(b, { readLoss: true });
    const r = interpret(ref, { x: tensor([B, F], b.x), labels: tensor([B], b.labels, 'i32') }, state, 'f64');
    expect(gpuLoss).toBeAllclose(r.outputs.loss.data, { rtol: 1e-4, atol: 1e-5 });
    state = { ...state, ...r.updates };
  }
  const all = await session.session.readState();
  for (const [name, v] of Object.entries(state)) expect(all[name].data, name).toBeAllclose(v.data, { rtol: 2e-3, atol: 2e-5 });
}

async function compare(makeOpt: () => Optimizer, steps: number, on: NeuraDevice = device) {
  const gpu = build();
  const session = await compileTraining(gpu.g, { loss: gpu.loss, optimizer: makeOpt(), device: on });
  const ref = build();
  ref.g.output('loss', ref.loss);
  const params = ref.g.leaves('param');
  makeOpt().apply(ref.g, params, grad(ref.g, ref.loss, params));
  await matchesInterpreter(session, ref.g, steps, 1);
  expect(session.stats.dispatchesPerStep).toBeLessThan(session.report?.dispatchesBefore ?? 0);
  session.dispose();
}

describe('compileTraining', () => {
  it('matches the interpreter over 5 Adam steps, parameters and moments included', async () => {
    await compare(() => adam({ lr: 1e-2 }), 5);
  });

  it('matches the interpreter over 5 SGD-with-momentum steps', async () => {
    await compare(() => sgd({ lr: 0.1, momentum: 0.9 }), 5);
  });

  it('optimized and unoptimized steps agree, and optimization lowers dispatches and bytes allocated', async () => {
    const plain = build();
    const fused = build();
    const a = await compileTraining(plain.g, { loss: plain.loss, optimizer: adam({ lr: 1e-2 }), device, optimize: false });
    const b = await compileTraining(fused.g, { loss: fused.loss, optimizer: adam({ lr: 1e-2 }), device });
    for (let s = 0; s < 3; s++) {
      const feeds = batch(s + 11);
      const la = await a.step(feeds, { readLoss: true });
      const lb = await b.step(feeds, { readLoss: true });
      expect(lb).toBeAllclose(la as number, { rtol: 1e-4, atol: 1e-6 });
    }
    const pa = await a.readParams();
    const pb = await b.readParams();
    for (const name of Object.keys(pa)) expect(pb[name].data, name).toBeAllclose(pa[name].data, { rtol: 1e-3, atol: 1e-5 });
    expect(b.stats.dispatchesPerStep).toBeLessThan(a.stats.dispatchesPerStep);
    expect(b.stats.bytesAllocated).toBeLessThan(a.stats.bytesAllocated);
    // Adam's p, m, v updates of every parameter run as one multi-tensor kernel, written in place, in one dispatch
    // (parameters, moments and gradients each laid out in one buffer)
    const multis = b.graph.live().filter((id) => b.graph.nodes[id].op === 'pointwiseMultiTensor');
    expect(multis.length).toBe(1);
    const mt = b.graph.nodes[multis[0]];
    expect(mt.op === 'pointwiseMultiTensor' && mt.attrs.shapes.length).toBe(b.graph.leaves('param').length);
    expect(b.stats.multiTensorArenas).toBe(1);
    expect(b.stats.copiesPerStep).toBe(0);
    a.dispose();
    b.dispose();
  });

  it('param groups with their own weight decay and gradient clipping: multi-tensor kernels that match the interpreter', async () => {
    const isBias = (n: string) => n.endsWith('.bias') || n.startsWith('b');
    const opts = () => ({
      groups: [
        { params: (n: string) => !isBias(n), optimizer: adamW({ lr: 1e-2, weightDecay: 0.1 }) },
        { params: isBias, optimizer: adamW({ lr: 1e-2, weightDecay: 0, name: 'adamWnd' }) },
      ],
      clipGradNorm: 0.5,
    });
    const gpu = build();
    const session = await compileTraining(gpu.g, { loss: gpu.loss, ...opts(), device });
    const ref = build();
    buildTrainingStep(ref.g, { loss: ref.loss, ...opts() });
    await matchesInterpreter(session, ref.g, 3, 5);
    // one multi-tensor kernel per group (their decay constants differ), each one dispatch
    const multis = session.graph.live().filter((id) => session.graph.nodes[id].op === 'pointwiseMultiTensor');
    expect(multis.length).toBe(2);
    expect(session.stats.multiTensorArenas).toBe(2);
    session.dispose();
  });

  it('leaves parameters untouched when a step is fed a label out of range', async () => {
    const { g, loss } = build();
    const session = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-2 }), device });
    await session.step(batch(1));
    const before = await session.session.readState();
    const bad = batch(2);
    bad.labels[3] = C;
    await expect(session.step(bad)).rejects.toThrow(/label.*10.*\[0, 10\)|outside/);
    await expect(session.step({ x: bad.x })).rejects.toThrow(/labels/);
    const after = await session.session.readState();
    for (const name of Object.keys(before)) expect(after[name].data).toBeAllclose(before[name].data, { rtol: 0, atol: 0 });
    session.dispose();
  });
});

describe('compileTraining on a device with tight limits', () => {
  it('plans within maxStorageBuffersPerShaderStage = 4 (the optimizer sees the device) and matches the interpreter', async () => {
    const small = await createDevice({ limitCaps: { maxStorageBuffersPerShaderStage: 4 } });
    try {
      expect(small.caps.maxStorageBuffersPerShaderStage).toBe(4);
      await compare(() => adam({ lr: 1e-2 }), 3, small); // compile refuses any dispatch over the limit
      // the plan for the default limits (8 buffers) has wider kernels: compiling it there is refused by name
      const { g, loss } = build();
      g.output('loss', loss);
      const params = g.leaves('param');
      adam({ lr: 1e-2 }).apply(g, params, grad(g, loss, params));
      const wide = optimize(g).graph;
      expect(wide.live().some((id) => wide.nodes[id].op === 'pointwiseMultiTensor')).toBe(true); // 6 bindings: p, m, v, g, step, table
      await expect(compile(wide, small)).rejects.toThrow(/maxStorageBuffersPerShaderStage = 4/);
    } finally {
      small.destroy();
    }
  });
});
