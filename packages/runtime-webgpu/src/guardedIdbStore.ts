// One IndexedDB object store behind a get/put that never fails a compile: the browser caches (matmul tuning here,
// optimized plans in nn) keep records in it. A store that breaks (private mode refusing IndexedDB, a blocked or
// corrupt database, a quota error) is warned about once, then reads find nothing and writes are dropped.

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

/** Where a guarded store lives and how its failures are reported. */
export interface GuardedIdbStoreOptions {
  /** The IndexedDB database. */
  readonly dbName: string;
  /** Its one object store. */
  readonly store: string;
  /** What the store is, for the warning (e.g. `plan cache`). */
  readonly label: string;
  /** What a broken store means for the user, ending the warning. */
  readonly consequence: string;
  /** The error thrown where there is no `indexedDB` at all (a setup mistake, not a broken store). */
  readonly missing: string;
  /** Receives the one warning. */
  readonly warn: (message: string) => void;
}

/** A record store in IndexedDB whose failures are warned about once and then ignored. */
export interface GuardedIdbStore {
  /** The record under `key`, or undefined (absent, or the store is broken). */
  get(key: string): Promise<unknown>;
  /** Stores `value` under `key` (dropped when the store is broken). */
  put(key: string, value: unknown): Promise<void>;
}

/** Opens (lazily) the store `opts` names; see the file header for what a failure does. */
export function guardedIdbStore(opts: GuardedIdbStoreOptions): GuardedIdbStore {
  const { dbName, store } = opts;
  let db: Promise<IDBDatabase> | undefined;
  let warned = false;
  const open = () => {
    db ??= (async () => {
      const r = indexedDB.open(dbName, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(store);
      return request(r);
    })();
    return db;
  };
  const guarded = async <T>(what: string, op: (d: IDBDatabase) => Promise<T>): Promise<T | undefined> => {
    if (typeof indexedDB === 'undefined') throw new Error(opts.missing);
    try {
      return await op(await open());
    } catch (e) {
      if (!warned) {
        warned = true;
        opts.warn(`${opts.label} IndexedDB '${dbName}': ${what} failed (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}); the cache is ignored (nothing is read or kept) and ${opts.consequence}`);
      }
      return undefined;
    }
  };
  return {
    get: (key) => guarded('reading', (d): Promise<unknown> => request(d.transaction(store, 'readonly').objectStore(store).get(key))),
    put: async (key, value) => void (await guarded('writing', async (d) => void (await request(d.transaction(store, 'readwrite').objectStore(store).put(value, key))))),
  };
}
