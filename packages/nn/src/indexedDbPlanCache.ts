// A plan cache in the browser's IndexedDB (one object store, a record per plan key), the browser's counterpart of
// `filePlanCache`. Only runs where `indexedDB` exists. Invariant: a broken store (private mode refusing IndexedDB, a
// blocked or corrupt database, a quota error) never fails a compile: its first failure is warned about once, then
// reads find nothing and writes are dropped (runtime-webgpu's indexedDbTuningCache does the same).

import type { PlanCache, PlanRecord } from './planCache.js';

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

/** A plan cache in IndexedDB database `dbName`; warnings (a broken store, a bad record) go to `warn`. */
export function indexedDbPlanCache(dbName = 'neura-plans', warn: (message: string) => void = console.warn): PlanCache {
  const STORE = 'plans';
  let db: Promise<IDBDatabase> | undefined;
  let warned = false;
  const open = () => {
    db ??= (async () => {
      const r = indexedDB.open(dbName, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE);
      return request(r);
    })();
    return db;
  };
  /** Runs one store operation; a failure of the store itself is warned about (once) and yields `fallback`. */
  const guarded = async <T>(what: string, fallback: T, op: (d: IDBDatabase) => Promise<T>): Promise<T> => {
    // no indexedDB at all is a setup error, thrown as such; a store that fails is the browser's, warned about
    if (typeof indexedDB === 'undefined') throw new Error('indexedDbPlanCache: this environment has no indexedDB (in Node, use filePlanCache from @neura/nn/node)');
    try {
      return await op(await open());
    } catch (e) {
      if (!warned) {
        warned = true;
        warn(`plan cache IndexedDB '${dbName}': ${what} failed (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}); the cache is ignored (nothing is read or kept) and plans are computed each compile`);
      }
      return fallback;
    }
  };
  return {
    warn,
    get: (key) => guarded('reading', undefined, async (d): Promise<unknown> => request(d.transaction(STORE, 'readonly').objectStore(STORE).get(key))),
    set: (key, record: PlanRecord) => guarded('writing', undefined, async (d) => void (await request(d.transaction(STORE, 'readwrite').objectStore(STORE).put(record, key)))),
  };
}
