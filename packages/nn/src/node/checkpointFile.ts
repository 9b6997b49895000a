// Node-only checkpoint files: an atomic write (temp file in the same folder, fsync, rename over the target)
// so a crash mid-save never leaves a truncated checkpoint behind, and a read that decodes and validates.
// Must stay out of the browser entry (`node:` imports); re-exported only from `@neura/nn/node`.
// A save killed mid-write leaves its full-size temp file: the next save to the same path removes such stale temps
// (their writer's process is gone, or they are older than a day); a live writer's temp file is never touched.

import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Checkpoint, type CheckpointInfo, type CheckpointTarget, readCheckpoint, saveCheckpoint } from '../checkpoint/checkpoint.js';
import type { Session } from '@neura/runtime-webgpu';

/** A temp file older than this is stale even if a process of its pid runs (pids are reused; other hosts share folders). */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** Whether process `pid` exists on this host (EPERM: it exists, owned by another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files that earlier `writeFileAtomic(path, …)` calls left behind when killed mid-write: those whose
 * writer process is no longer alive, and any older than a day. Temps of live writers (this process's concurrent
 * saves included) stay. Returns the names removed. `writeFileAtomic` calls it before each save.
 */
export async function cleanStaleTemps(path: string): Promise<string[]> {
  const dir = dirname(path);
  const base = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const temp = new RegExp(`^\\.${base}\\.(\\d+)\\.[0-9a-f]{16}\\.tmp$`);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return []; // no folder yet: the save reports that itself
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = temp.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const file = join(dir, name);
    const old = await stat(file).then((st) => Date.now() - st.mtimeMs > STALE_AFTER_MS, () => false);
    if (!old && (pid === process.pid || processAlive(pid))) continue;
    await rm(file, { force: true });
    removed.push(name);
  }
  return removed;
}

/** Writes bytes to `path` atomically: a temp file beside it, flushed to disk, renamed over `path`. */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  await cleanStaleTemps(path);
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
