// Node-only checkpoint files: an atomic write (temp file in the same folder, fsync, rename over the target)
// so a crash mid-save never leaves a truncated checkpoint behind, and a read that decodes and validates.
// Must stay out of the browser entry (`node:` imports); re-exported only from `@neura/nn/node`.

import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Checkpoint, type CheckpointInfo, type CheckpointTarget, readCheckpoint, saveCheckpoint } from '../checkpoint/checkpoint.js';
import type { Session } from '@neura/runtime-webgpu';

/** Writes bytes to `path` atomically: a temp file beside it, flushed to disk, renamed over `path`. */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  // random bytes, not a timestamp: two saves to one path in the same millisecond must not share (and
  // interleave into) one temp file; 'wx' fails rather than write into someone else's temp file
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(8).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx');
  try {
    await fh.writeFile(bytes);
    await fh.sync();
    await fh.close();
  } catch (e) {
    await fh.close().catch(() => {}); // may already be closed; the write's error is the one to report
    await rm(tmp, { force: true });
    throw e;
  }
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
