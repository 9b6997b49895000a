// A measured-mode decision cache kept in a JSON file (key → chosen candidate), so that a later process compiling
// the same step on the same adapter reads the decision instead of measuring. Node only (`node:` imports).
// Invariant: the file is rewritten atomically; an unreadable or missing file is an empty cache (a miss costs time only).

import { readFile } from 'node:fs/promises';
import type { DecisionCache } from '../chooseStep.js';
import { writeFileAtomic } from './checkpointFile.js';

/** A decision cache in the JSON file at `path` (created on the first decision). */
export function fileDecisionCache(path: string): DecisionCache {
  let entries: Record<string, string> | undefined;
  const load = async (): Promise<Record<string, string>> => {
    if (entries) return entries;
    try {
      const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
      entries = parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
    } catch {
      entries = {};
    }
    return entries;
  };
  return {
    async get(key) {
      const v = (await load())[key];
      return typeof v === 'string' ? v : undefined;
    },
    async set(key, choice) {
      const e = await load();
      e[key] = choice;
      await writeFileAtomic(path, new TextEncoder().encode(`${JSON.stringify(e, null, 2)}\n`));
    },
  };
}
