// Node-only checkpoint files: an atomic write (temp file in the same folder, fsync, rename over the target)
// so a crash mid-save never leaves a truncated checkpoint behind, and a read that decodes and validates.
// Must stay out of the browser entry (`node:` imports); re-exported only from `@neura/nn/node`.

import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Checkpoint, type CheckpointInfo, type CheckpointTarget, readCheckpoint, saveCheckpoint } from '../checkpoint/checkpoint.js';
import type { Session } from '@neura/runtime-webgpu';

/** Writes bytes to `path` atomically: a temp file beside it, flushed to disk, renamed over `path`. */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Saves a session's params and state with `info` to a safetensors file, atomically. */
export async function saveCheckpointFile(path: string, target: CheckpointTarget | Session, info: CheckpointInfo): Promise<void> {
  await writeFileAtomic(path, await saveCheckpoint(target, info));
}

/** Reads and validates a checkpoint file (restore it with `restoreCheckpoint`). */
export async function loadCheckpointFile(path: string): Promise<Checkpoint> {
  return readCheckpoint(await readFile(path));
}
