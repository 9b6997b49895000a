// Where measured matmul choices are kept between processes: per adapter (`adapterKey`), a record of shape key →
// chosen configuration name (or `default`: the shipped heuristic won). Implementations: in memory (here), in
// IndexedDB (browsers, here), in a JSON file per adapter (Node: `fileTuningCache` in @neura/nn/node).
// Invariant: what is read back is validated by `validTuningEntries`; a corrupt record, one from another adapter or
// an entry naming no known configuration is ignored with a warning naming where it came from, never applied.

import { guardedIdbStore } from './guardedIdbStore.js';
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

/**
 * A tuning cache in the browser's IndexedDB (database `dbName`, one object store, a record per adapter key). Only
 * runs where `indexedDB` exists; its reads go through `validTuningEntries` like the Node file cache's. A broken
 * store (private mode refusing IndexedDB, a blocked or corrupt database, a quota error) never fails a compile: the
 * first failure is reported once through `warn`, naming the problem; then reads find nothing and writes are dropped.
 */
export function indexedDbTuningCache(dbName = 'neura-matmul-tuning', warn: (message: string) => void = console.warn): TuningCache {
  const store = guardedIdbStore({
    dbName,
    store: 'records',
    label: 'matmul tuning cache',
    consequence: 'tuning results stay in this session',
    missing: 'indexedDbTuningCache: this environment has no indexedDB (in Node, use fileTuningCache from @neura/nn/node)',
    warn,
  });
  return {
    async load(adapter) {
      const raw = await store.get(adapter);
      return raw === undefined ? {} : validTuningEntries(raw, adapter, `IndexedDB '${dbName}' record '${adapter}'`, warn);
    },
    async save(adapter, entries) {
      const record: TuningRecord = { adapter, entries };
      await store.put(adapter, record);
    },
  };
}
