// A plan cache in a directory of JSON files, one per key (`plan-<key>.json`, the key a SHA-256 in hex), so a later
// process compiling the same step for the same device limits reads the plan instead of running the e-graph.
// Node only (`node:` imports). Invariant: files are written atomically; a missing file is a miss; an unreadable
// or non-JSON file throws naming the file, which `optimizeWithPlanCache` reports once and overwrites.

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlanCache } from '../planCache.js';
import { writeFileAtomic } from './checkpointFile.js';

/** The file of a key's plan under `dir`. */
export const planCachePath = (dir: string, key: string) => join(dir, `plan-${key}.json`);

/** A plan cache of JSON files under `dir` (created on the first store); warnings go to `warn` (default console.warn). */
export function filePlanCache(dir: string, warn: (message: string) => void = console.warn): PlanCache {
  return {
    warn,
    async get(key) {
      const path = planCachePath(dir, key);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new Error(`file ${path}: ${(e as Error).message}`);
      }
      try {
        return JSON.parse(text);
      } catch (e) {
        throw new Error(`file ${path} is not JSON: ${(e as Error).message}`);
      }
    },
    async set(key, record) {
      await mkdir(dir, { recursive: true });
      await writeFileAtomic(planCachePath(dir, key), new TextEncoder().encode(JSON.stringify(record)));
    },
  };
}
