// Where measured matmul choices are kept between processes: per adapter (`adapterKey`), a record of shape key →
// chosen configuration name (or `default`: the shipped heuristic won). Implementations: in memory (here), in
// IndexedDB (browsers, here), in a JSON file per adapter (Node: `fileTuningCache` in @neura/nn/node).
// Invariant: what is read back is validated by `validTuningEntries`; a corrupt record, one from another adapter or
// an entry naming no known configuration is ignored with a warning naming where it came from, never applied.

import { MATMUL_CONFIG_BY_NAME, MATMUL_HEURISTIC } from '@neura/wgsl-kernels';

/** The choice recorded when the shipped heuristic was fastest (a table entry that selects the heuristic). */
export const DEFAULT_CHOICE = MATMUL_HEURISTIC;

/** Shape key (`matmulShapeKey`) → configuration name or `default`. */
export type TuningEntries = Record<string, string>;

/** What a cache stores per adapter. */
export interface TuningRecord {
  /** `adapterKey` of the adapter the entries were measured on. */
  readonly adapter: string;
  /** The choices, by shape key. */
  readonly entries: TuningEntries;
}

/** A store of measured matmul choices, one record per adapter. */
export interface TuningCache {
  /** The valid entries measured on `adapter` ({} when none). */
  load(adapter: string): Promise<TuningEntries>;
  /** Replaces the record of `adapter`. */
  save(adapter: string, entries: TuningEntries): Promise<void>;
}

const SHAPE_KEY = /^\d+x\d+x\d+:[NT][NT]:b\d+$/;

/**
 * The entries of a stored record that may be applied on `adapter`: anything else (not a record, another adapter's
 * record, a malformed key, an unknown configuration) is dropped with a warning that names `where` and the entry.
 */
export function validTuningEntries(raw: unknown, adapter: string, where: string, warn: (message: string) => void): TuningEntries {
  if (!raw || typeof raw !== 'object' || typeof (raw as TuningRecord).entries !== 'object' || (raw as TuningRecord).entries === null) {
    warn(`matmul tuning cache ${where}: not a tuning record ({ adapter, entries }); ignored`);
    return {};
  }
  const rec = raw as TuningRecord;
  if (rec.adapter !== adapter) {
    warn(`matmul tuning cache ${where}: recorded on adapter '${String(rec.adapter)}', not this one ('${adapter}'); ignored`);
    return {};
  }
  const out: TuningEntries = {};
  for (const [key, name] of Object.entries(rec.entries)) {
    if (SHAPE_KEY.test(key) && typeof name === 'string' && (name === DEFAULT_CHOICE || MATMUL_CONFIG_BY_NAME.has(name))) out[key] = name;
    else warn(`matmul tuning cache ${where}: entry '${key}' → ${JSON.stringify(name)} is not a shape key and known configuration; ignored`);
  }
  return out;
}

/** A tuning cache in memory (one process). */
export function memoryTuningCache(): TuningCache & { readonly records: Map<string, TuningEntries> } {
  const records = new Map<string, TuningEntries>();
  return {
    records,
    load: async (adapter) => ({ ...(records.get(adapter) ?? {}) }),
    save: async (adapter, entries) => void records.set(adapter, { ...entries }),
  };
}

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

/**
 * A tuning cache in the browser's IndexedDB (database `dbName`, one object store, a record per adapter key). Only
 * runs where `indexedDB` exists; its reads go through `validTuningEntries` like the Node file cache's. A broken
 * store (private mode refusing IndexedDB, a blocked or corrupt database, a quota error) never fails a compile: the
 * first failure is reported once through `warn`, naming the problem; then reads find nothing and writes are dropped.
 */
export function indexedDbTuningCache(dbName = 'neura-matmul-tuning', warn: (message: string) => void = console.warn): TuningCache {
  const STORE = 'records';
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
    if (typeof indexedDB === 'undefined') throw new Error('indexedDbTuningCache: this environment has no indexedDB (in Node, use fileTuningCache from @neura/nn/node)');
    try {
      return await op(await open());
    } catch (e) {
      if (!warned) {
        warned = true;
        warn(`matmul tuning cache IndexedDB '${dbName}': ${what} failed (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}); the cache is ignored (nothing is read or kept) and tuning results stay in this session`);
      }
      return fallback;
    }
  };
  return {
    async load(adapter) {
      const raw: unknown = await guarded('reading', undefined, async (d) => request(d.transaction(STORE, 'readonly').objectStore(STORE).get(adapter)));
      return raw === undefined ? {} : validTuningEntries(raw, adapter, `IndexedDB '${dbName}' record '${adapter}'`, warn);
    },
    async save(adapter, entries) {
      const record: TuningRecord = { adapter, entries };
      await guarded('writing', undefined, async (d) => void (await request(d.transaction(STORE, 'readwrite').objectStore(STORE).put(record, adapter))));
    },
  };
}
