// Checkpoint files on disk without a GPU: concurrent atomic saves to one path each use their own temp file.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tensor } from '@neura/ir';
import { encodeCheckpoint } from '@neura/nn';
import { loadCheckpointFile, writeFileAtomic } from '@neura/nn/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

describe('checkpoint files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'neura-ckpt-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('concurrent saves to one path leave a file that loads, and no temp files', async () => {
    const path = join(dir, 'model.safetensors');
    // different sizes, started in the same tick (the old temp name was pid + millisecond, shared by all)
    const saves = Array.from({ length: 8 }, (_, i) => encodeCheckpoint({ w: tensor([i + 1], Array.from({ length: i + 1 }, () => i)) }, { step: i }));
    await Promise.all(saves.map((b) => writeFileAtomic(path, b)));
    const ckpt = await loadCheckpointFile(path);
    expect(ckpt.tensors.w.data.length).toBe(ckpt.step + 1);
    expect(await readdir(dir)).toEqual(['model.safetensors']);
  });

  it('a failed write removes its temp file', async () => {
    const path = join(dir, 'model.safetensors');
    await expect(writeFileAtomic(path, 42 as unknown as Uint8Array)).rejects.toThrow();
    expect(await readdir(dir)).toEqual([]);
  });
});
