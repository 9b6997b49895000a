// The IndexedDB plan cache over a broken browser store (fake IDB factories: test doubles of the browser's storage,
// not of the cache): the compile's optimize still runs and returns its plan, and one warning names the problem.

import { Graph } from '@neura/ir';
import { indexedDbPlanCache, optimizeWithPlanCache } from '@neura/nn';
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => vi.unstubAllGlobals());

const domError = (name: string, message: string) => Object.assign(new Error(message), { name });

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

const brokenStores: Record<string, () => unknown> = {
  'open throws (private mode)': () => ({ open: () => { throw domError('SecurityError', 'The operation is insecure.'); } }),
  'the store is missing (corrupt database)': () => ({ open: () => okRequest({ transaction: () => { throw domError('NotFoundError', 'One of the specified object stores was not found.'); } }) }),
  'the request fails (quota)': () => ({
    open: () => okRequest({ transaction: () => ({ objectStore: () => ({ get: () => okRequest(undefined), put: () => failingRequest(domError('QuotaExceededError', 'quota')) }) }) }),
  }),
};

function step(): Graph {
  const g = new Graph();
  g.output('y', g.relu(g.matmul(g.input('x', [2, 3]), g.param('w', [3, 4]))));
  return g;
}

describe('indexedDbPlanCache over a broken store', () => {
  for (const [what, factory] of Object.entries(brokenStores))
    it(`never fails the optimize, warning once when ${what}`, async () => {
      vi.stubGlobal('indexedDB', factory());
      const warn = vi.fn();
      const cache = indexedDbPlanCache('neura-test', warn);
      for (let i = 0; i < 2; i++) {
        const plan = await optimizeWithPlanCache(step(), {}, cache, 'compileInference');
        expect(plan.fromCache).toBe(false);
        expect(plan.graph.byName('w')).toBeDefined();
      }
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/plan cache IndexedDB 'neura-test': (reading|writing) failed \((SecurityError|NotFoundError|QuotaExceededError): .+\); the cache is ignored/);
    });

  it('says clearly when there is no indexedDB at all', async () => {
    vi.stubGlobal('indexedDB', undefined);
    await expect(indexedDbPlanCache('neura-test').get('x')).rejects.toThrow(/this environment has no indexedDB/);
  });
});
