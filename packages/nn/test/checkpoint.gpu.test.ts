// Checkpoints on a real adapter: train 4 steps straight, or 2 steps → save to a file (atomic write) → a fresh
// session restores it → 2 more steps; params, Adam moments and step counter must be bit-identical. The data
// stream and the dropout offsets come from an Rng whose state travels in the checkpoint.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Graph, type TensorValue } from '@neura/ir';
import { CheckpointMismatchError, compileTraining, Linear, readCheckpoint, restoreCheckpoint, Rng, saveCheckpoint, type TrainingSession } from '@neura/nn';
import { adam } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckpointFile, saveCheckpointFile } from '@neura/nn/node';

let device: NeuraDevice;
let dir: string;
beforeAll(async () => {
  device = await createDevice();
  dir = mkdtempSync(join(tmpdir(), 'neura-ckpt-'));
});
afterAll(() => {
  device.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const B = 4;
const F = 6;
const C = 3;

async function build(hidden = 8): Promise<TrainingSession> {
  const g = new Graph();
  const x = g.input('x', [B, F]);
  const labels = g.input('labels', [B], 'i32');
  const offset = g.input('dropoutOffset', [], 'i32');
  const h = g.dropout(g.relu(new Linear(F, hidden).forward(g, x, 'fc1')), 0.25, 1234, offset);
  const loss = g.crossEntropy(new Linear(hidden, C).forward(g, h, 'fc2'), labels);
  return compileTraining(g, { loss, optimizer: adam({ lr: g.input('lr', []) }), device });
}

/** One step whose data, dropout offset and learning rate all come from `rng`. */
async function step(s: TrainingSession, rng: Rng): Promise<void> {
  const x = Float32Array.from({ length: B * F }, () => rng.next() * 2 - 1);
  const labels = Int32Array.from({ length: B }, () => rng.int(C));
  await s.step({ x, labels, dropoutOffset: Int32Array.of(rng.int(1 << 30)), lr: Float32Array.of(0.01 + 0.01 * rng.next()) });
}

const bits = (v: TensorValue) => Array.from(new Uint32Array(new Float32Array(v.data).buffer));

describe('checkpoints', () => {
  it('resume from a file continues bit-identically (params, Adam moments, step, RNG)', async () => {
    const straight = await build();
    const rngA = new Rng(42);
    for (let i = 0; i < 4; i++) await step(straight, rngA);
    const want = await straight.session.readState();
    straight.dispose();

    const first = await build();
    const rngB = new Rng(42);
    for (let i = 0; i < 2; i++) await step(first, rngB);
    const path = join(dir, 'run.safetensors');
    await saveCheckpointFile(path, first, { step: 2, rng: { data: rngB.state }, extra: { model: 'mlp 6-8-3' } });
    first.dispose();
    expect(readdirSync(dir)).toEqual(['run.safetensors']); // the temp file was renamed, nothing left behind

    const ckpt = await loadCheckpointFile(path);
    expect(ckpt.step).toBe(2);
    expect(ckpt.extra).toEqual({ model: 'mlp 6-8-3' });
    expect(Object.keys(ckpt.tensors).sort()).toEqual(Object.keys(want).sort());
    const resumed = await build();
    await restoreCheckpoint(resumed, ckpt);
    const rngC = new Rng().setState(ckpt.rng.data);
    for (let i = ckpt.step; i < 4; i++) await step(resumed, rngC);
    const got = await resumed.session.readState();
    for (const name of Object.keys(want)) expect(bits(got[name]), name).toEqual(bits(want[name]));
    expect(got['adam.step'].data[0]).toBe(4);
    resumed.dispose();
  });

  it('refuses a checkpoint of another shape and leaves the session untouched', async () => {
    const small = await build(8);
    const bytes = await saveCheckpoint(small, { step: 0 });
    small.dispose();
    const wide = await build(10);
    const before = await wide.session.readState();
    const err = await restoreCheckpoint(wide, readCheckpoint(bytes)).catch((e) => e);
    expect(err).toBeInstanceOf(CheckpointMismatchError);
    expect(String(err.message)).toMatch(/'fc1.weight' is \[6, 8\] f32 in the checkpoint, \[6, 10\] f32 in the session/);
    const after = await wide.session.readState();
    for (const name of Object.keys(before)) expect(bits(after[name]), name).toEqual(bits(before[name]));
    const partial = { tensors: { 'fc2.bias': readCheckpoint(bytes).tensors['fc2.bias'] } };
    await expect(restoreCheckpoint(wide, partial)).rejects.toThrow(/'fc1.weight' is missing from the checkpoint/);
    await restoreCheckpoint(wide, partial, { strict: false });
    expect(bits(await wide.session.read('fc2.bias'))).toEqual(bits(partial.tensors['fc2.bias']));
    wide.dispose();
  });
});
