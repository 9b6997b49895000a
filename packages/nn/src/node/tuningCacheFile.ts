// A matmul tuning cache in JSON files under a directory the user gives, one file per adapter
// (`matmul-tuning-<hash of the adapter key>.json`, holding { adapter, entries }), so a later process compiling on
// the same adapter reads the choices instead of measuring. Node only (`node:` imports).
// Invariant: files are rewritten atomically; a corrupt file, another adapter's record or an unknown entry is
// ignored with a warning naming the file and entry (runtime's `validTuningEntries`); a missing file is empty.

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashName } from '@neura/ir';
import { type TuningCache, type TuningRecord, validTuningEntries } from '@neura/runtime-webgpu';
import { writeFileAtomic } from './checkpointFile.js';

/** The file of an adapter's record under `dir`. */
export const tuningCachePath = (dir: string, adapter: string) => join(dir, `matmul-tuning-${hashName(adapter).toString(36)}.json`);

/** A tuning cache of JSON files under `dir` (created on the first save); warnings go to `warn` (default console.warn). */
export function fileTuningCache(dir: string, warn: (message: string) => void = console.warn): TuningCache {
  return {
    async load(adapter) {
      const path = tuningCachePath(dir, adapter);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
        warn(`matmul tuning cache file ${path}: unreadable (${(e as Error).message}); ignored`);
        return {};
      }
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (e) {
        warn(`matmul tuning cache file ${path}: not JSON (${(e as Error).message}); ignored`);
        return {};
      }
      return validTuningEntries(raw, adapter, `file ${path}`, warn);
    },
    async save(adapter, entries) {
      await mkdir(dir, { recursive: true });
      const record: TuningRecord = { adapter, entries };
      await writeFileAtomic(tuningCachePath(dir, adapter), new TextEncoder().encode(`${JSON.stringify(record, null, 2)}\n`));
    },
  };
}
