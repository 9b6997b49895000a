// Checkpoint files on disk without a GPU: concurrent atomic saves to one path each use their own temp file, and a
// save removes the temp files that killed saves to the same path left behind (never a live writer's).

import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tensor } from '@neura/ir';
import { encodeCheckpoint } from '@neura/nn';
import { cleanStaleTemps, loadCheckpointFile, writeFileAtomic } from '@neura/nn/node';
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

  it('a save removes stale temp files of its path: a dead writer\'s, or one older than a day; live writers\' stay', async () => {
    const path = join(dir, 'model.safetensors');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid; // exited: its pid names no live process
    const hex = 'ab'.repeat(8);
    const stale = `.model.safetensors.${dead}.${hex}.tmp`;
    const live = `.model.safetensors.${process.ppid}.${hex}.tmp`; // the parent process is alive
    const own = `.model.safetensors.${process.pid}.${hex}.tmp`; // a concurrent save of this process
    const ancient = `.model.safetensors.${process.ppid}.${'cd'.repeat(8)}.tmp`;
    const other = `.other.safetensors.${dead}.${hex}.tmp`; // another path's temp: not this save's business
    for (const n of [stale, live, own, ancient, other]) await writeFile(join(dir, n), new Uint8Array(1024));
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    await utimes(join(dir, ancient), twoDaysAgo, twoDaysAgo);
    await writeFileAtomic(path, encodeCheckpoint({ w: tensor([1], [1]) }, { step: 1 }));
    expect((await readdir(dir)).sort()).toEqual([live, own, other, 'model.safetensors'].sort());
    expect(await cleanStaleTemps(join(dir, 'other.safetensors'))).toEqual([other]);
    expect(await cleanStaleTemps(join(dir, 'missing', 'x'))).toEqual([]);
  });
});
