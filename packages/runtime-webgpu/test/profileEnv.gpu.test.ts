// NEURA_PROFILE on an adapter without `timestamp-query` (llvmpipe has none; another adapter is seen without it):
// the profiled step runs as a plain step, one console.warn names the missing feature, and no trace is written.

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Graph, interpret, tensor } from '@neura/ir';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { compile, createDevice, type NeuraDevice } from '../src/index.js';
import { randoms } from './graphs.js';

let real: NeuraDevice;
let device: NeuraDevice;
beforeAll(async () => {
  real = await createDevice();
  // the same device seen without timestamp-query (a no-op on llvmpipe, which offers none)
  const features = new Set([...real.features].filter((f) => f !== 'timestamp-query'));
  device = Object.create(real, { features: { value: features } }) as NeuraDevice;
});
afterAll(() => real?.destroy());
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('NEURA_PROFILE without timestamp-query', () => {
  it('warns once, naming the feature, and runs every step normally', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'neura-profile-')), 'trace.json');
    vi.stubEnv('NEURA_PROFILE', path);
    vi.stubEnv('NEURA_PROFILE_STEP', '1');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const g = new Graph();
    g.output('y', g.relu(g.linear(g.input('x', [4, 6]), g.param('w', [6, 3]), g.param('b', [3]))));
    const session = await compile(g, device);
    const state = await session.readState();
    for (let s = 0; s < 4; s++) {
      const feeds = { x: tensor([4, 6], randoms(24, s + 1)) };
      const r = await session.step(feeds, { read: ['y'] });
      expect(r.outputs.y.data).toBeAllclose(interpret(g, feeds, state, 'f32').outputs.y.data, { rtol: 1e-4, atol: 1e-5 });
    }
    const notes = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('NEURA_PROFILE'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/timestamp-query/);
    expect(notes[0]).toContain(device.name);
    expect(existsSync(path)).toBe(false);
    session.dispose();
  });
});
