// Choosing by measurement: candidate plans of an MLP step compiled, checked against the interpreter and timed on the
// software adapter; the chosen plan starts from the compiled state (the measured steps undone) and trains like the
// default plan; a second compile with the same cache reads the decision instead of measuring.

import { Graph, tensor } from '@neura/ir';
import { compileTraining, memoryDecisionCache, mlp, TrainingStepError } from '@neura/nn';
import { adam } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const B = 8;
const F = 6;
const C = 10;

function build() {
  const g = new Graph();
  const x = g.input('x', [B, F]);
  const labels = g.input('labels', [B], 'i32');
  return { g, loss: g.crossEntropy(mlp([F, 16, C]).forward(g, x), labels) };
}

const feeds = (seed: number) => ({
  x: tensor([B, F], Array.from({ length: B * F }, (_, i) => Math.sin(i * 0.7 + seed))),
  labels: tensor([B], Array.from({ length: B }, (_, i) => (i * 3 + seed) % C), 'i32'),
});

const candidates = [{ name: 'model' }, { name: 'unoptimized', optimize: false }, { name: 'per-parameter-updates', withoutRules: ['update-multi-tensor'] }];

describe('compileTraining with measure', () => {
  it('times distinct checked candidates, keeps the fastest, undoes the measured steps, and caches the decision', async () => {
    const cache = memoryDecisionCache();
    const measure = { feeds: feeds(1), steps: 2, cache, candidates, checkInterpreter: true };
    const a = build();
    const measured = await compileTraining(a.g, { loss: a.loss, optimizer: adam({ lr: 1e-2 }), device, measure });
    const m = measured.measurement;
    expect(m?.cached).toBe(false);
    expect(m?.candidates.map((c) => c.name)).toEqual(['model', 'unoptimized', 'per-parameter-updates']); // three distinct plans
    for (const c of m?.candidates ?? []) expect(c.ok, `${c.name}: ${c.why}`).toBe(true);
    const fastest = [...(m?.candidates ?? [])].sort((x, y) => x.msPerStep - y.msPerStep)[0];
    expect(m?.choice).toBe(fastest.name);

    // the chosen session starts where a plain compile starts, and trains like it
    const b = build();
    const plain = await compileTraining(b.g, { loss: b.loss, optimizer: adam({ lr: 1e-2 }), device });
    const s0 = await measured.session.readState();
    const p0 = await plain.session.readState();
    for (const [name, v] of Object.entries(p0)) expect(s0[name].data, name).toBeAllclose(v.data, { rtol: 0, atol: 0 });
    for (let s = 0; s < 2; s++) {
      const lm = await measured.step(feeds(s + 5), { readLoss: true });
      const lp = await plain.step(feeds(s + 5), { readLoss: true });
      expect(lm).toBeAllclose(lp as number, { rtol: 1e-4, atol: 1e-6 });
    }
    measured.dispose();
    plain.dispose();

    // a second compile of the same step on the same adapter reads the decision
    const c = build();
    const again = await compileTraining(c.g, { loss: c.loss, optimizer: adam({ lr: 1e-2 }), device, measure });
    expect(again.measurement).toMatchObject({ cached: true, choice: m?.choice, key: m?.key, candidates: [] });
    again.dispose();
  });

  it('refuses options that cannot make a measured step with a TrainingStepError', async () => {
    const a = build();
    const measure = { feeds: feeds(1), steps: 1, cache: memoryDecisionCache() };
    await expect(compileTraining(a.g, { loss: a.loss, optimizer: adam({ lr: 1e-2 }), device, measure, optimize: false })).rejects.toThrow(TrainingStepError);
    const b = build();
    await expect(compileTraining(b.g, { loss: b.loss, optimizer: adam({ lr: 1e-2 }), device, measure: { ...measure, candidates: [] } })).rejects.toThrow(
      new TrainingStepError('compileTraining: measure.candidates is empty'),
    );
  });
});
