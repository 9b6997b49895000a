// The IndexedDB tuning cache over a broken browser store (fake IDB factories: test doubles of the browser's
// storage, not of the cache): reads find nothing, writes are dropped, and one console.warn names the problem.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { indexedDbTuningCache } from './tuningCache.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** An IDBRequest-like object that fails with `error` on the next tick. */
function failingRequest(error: Error) {
  const r: { error: Error; onsuccess?: () => void; onerror?: () => void; onupgradeneeded?: () => void } = { error };
  setTimeout(() => r.onerror?.(), 0);
  return r;
}

/** An IDBRequest-like object that succeeds with `result` on the next tick. */
function okRequest<T>(result: T) {
  const r: { result: T; onsuccess?: () => void; onerror?: () => void; onupgradeneeded?: () => void } = { result };
  setTimeout(() => r.onsuccess?.(), 0);
  return r;
}

const domError = (name: string, message: string) => Object.assign(new Error(message), { name });

const brokenStores: Record<string, () => unknown> = {
  'open throws (private mode)': () => ({ open: () => { throw domError('SecurityError', 'The operation is insecure.'); } }),
  'open fails (a newer database version)': () => ({ open: () => failingRequest(domError('VersionError', 'The requested version (1) is less than the existing version (2).')) }),
  'the store is missing (corrupt database)': () => ({
    open: () => okRequest({ transaction: () => { throw domError('NotFoundError', "One of the specified object stores was not found."); } }),
  }),
  'the request fails (quota)': () => ({
    open: () => okRequest({ transaction: () => ({ objectStore: () => ({ get: () => failingRequest(domError('QuotaExceededError', 'quota')), put: () => failingRequest(domError('QuotaExceededError', 'quota')) }) }) }),
  }),
};

describe('indexedDbTuningCache over a broken store', () => {
  for (const [what, factory] of Object.entries(brokenStores))
    it(`is ignored with one warning naming the problem when ${what}`, async () => {
      vi.stubGlobal('indexedDB', factory());
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const cache = indexedDbTuningCache('neura-test');
      await expect(cache.load('llvmpipe')).resolves.toEqual({});
      await expect(cache.save('llvmpipe', { '64x64x64:NN:b1': 'default' })).resolves.toBeUndefined();
      await expect(cache.load('llvmpipe')).resolves.toEqual({});
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/matmul tuning cache IndexedDB 'neura-test': reading failed \((SecurityError|VersionError|NotFoundError|QuotaExceededError): .+\); the cache is ignored/);
    });

  it('still says clearly when there is no indexedDB at all', async () => {
    vi.stubGlobal('indexedDB', undefined);
    await expect(indexedDbTuningCache('neura-test').load('x')).rejects.toThrow(/this environment has no indexedDB/);
  });
});
