// A plan cache in the browser's IndexedDB (one object store, a record per plan key), the browser's counterpart of
// `filePlanCache`. Only runs where `indexedDB` exists. Invariant: a broken store (private mode refusing IndexedDB, a
// blocked or corrupt database, a quota error) never fails a compile: its first failure is warned about once, then
// reads find nothing and writes are dropped (runtime-webgpu's guardedIdbStore).

import { guardedIdbStore } from '@neura/runtime-webgpu';
import type { PlanCache, PlanRecord } from './planCache.js';

/** A plan cache in IndexedDB database `dbName`; warnings (a broken store, a bad record) go to `warn`. */
export function indexedDbPlanCache(dbName = 'neura-plans', warn: (message: string) => void = console.warn): PlanCache {
  const store = guardedIdbStore({
    dbName,
    store: 'plans',
    label: 'plan cache',
    consequence: 'plans are computed each compile',
    missing: 'indexedDbPlanCache: this environment has no indexedDB (in Node, use filePlanCache from @neura/nn/node)',
    warn,
  });
  return {
    warn,
    get: (key) => store.get(key),
    set: (key, record: PlanRecord) => store.put(key, record),
  };
}
