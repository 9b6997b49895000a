// fetchCached / fetchWeights: size and SHA-256 checks with typed errors naming the URL and both values, progress
// from the response stream, and a cache that serves a verified copy, drops a corrupt one and stores only verified
// downloads. Local Response objects (Node 20 has Response and crypto.subtle); the cache is a Map behind the Cache API's methods.
import { createHash } from 'node:crypto';
import { FetchCachedError, fetchCached, type FetchProgress, fetchWeights, type ResponseCache, sha256Hex } from '@neura/nn/worker';
import { describe, expect, it } from 'vitest';

const URL = 'https://example.test/weights.safetensors';
const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
const sha = createHash('sha256').update(bytes).digest('hex'); // node:crypto as the independent reference

/** A fetch serving `body` in 3 chunks, counting its calls. */
function server(body: Uint8Array, init: ResponseInit = {}) {
  const calls: string[] = [];
  const fetch = async (url: string) => {
    calls.push(url);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 3; i++) c.enqueue(body.slice(Math.floor((i * body.length) / 3), Math.floor(((i + 1) * body.length) / 3)));
        c.close();
      },
    });
    return new Response(stream, { headers: { 'content-length': String(body.length) }, ...init });
  };
  return { fetch, calls };
}

function memoryCache(): ResponseCache & { store: Map<string, Response> } {
  const store = new Map<string, Response>();
  return {
    store,
    match: async (u) => store.get(u)?.clone(),
    put: async (u, r) => void store.set(u, r),
    delete: async (u) => store.delete(u),
  };
}

const rejection = async (p: Promise<unknown>): Promise<FetchCachedError> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FetchCachedError);
  return e as FetchCachedError;
};

describe('fetchCached', () => {
  it('computes SHA-256 as node:crypto does', async () => {
    expect(await sha256Hex(bytes)).toBe(sha);
  });

  it('returns the bytes when size and SHA-256 match, reporting progress per chunk', async () => {
    const { fetch } = server(bytes);
    const progress: FetchProgress[] = [];
    const got = await fetchCached(URL, { fetch, cache: false, size: 1000, sha256: sha.toUpperCase(), onProgress: (p) => progress.push(p) });
    expect(got).toEqual(bytes);
    expect(progress.map((p) => p.loaded)).toEqual([0, 333, 666, 1000]);
    expect(progress.every((p) => p.total === 1000 && p.url === URL && !p.cached)).toBe(true);
  });

  it('names the URL and both sizes on a size mismatch', async () => {
    const e = await rejection(fetchCached(URL, { fetch: server(bytes).fetch, cache: false, size: 999 }));
    expect(e).toMatchObject({ url: URL, failure: 'size', expected: 999, actual: 1000 });
    expect(e.message).toBe(`fetch ${URL}: expected 999 bytes, got 1000`);
  });

  it('names the URL and both hashes on a SHA-256 mismatch', async () => {
    const corrupt = bytes.slice();
    corrupt[500] ^= 1;
    const e = await rejection(fetchCached(URL, { fetch: server(corrupt).fetch, cache: false, sha256: sha }));
    expect(e).toMatchObject({ url: URL, failure: 'sha256', expected: sha, actual: createHash('sha256').update(corrupt).digest('hex') });
    expect(e.message).toContain(URL);
    expect(e.message).toContain(sha);
  });

  it('reports an HTTP error status and a malformed expected hash', async () => {
    const e = await rejection(fetchCached(URL, { fetch: server(new Uint8Array(0), { status: 404, statusText: 'Not Found' }).fetch, cache: false }));
    expect(e).toMatchObject({ failure: 'http', actual: 404 });
    expect(e.message).toBe(`fetch ${URL}: HTTP 404 Not Found`);
    const o = await rejection(fetchCached(URL, { fetch: server(bytes).fetch, sha256: 'abc' }));
    expect(o.failure).toBe('option');
  });

  it('serves a verified cached copy without fetching, and never caches a failed download', async () => {
    const cache = memoryCache();
    const s = server(bytes);
    await expect(fetchWeights(URL, { fetch: s.fetch, cache, sha256: sha.replace(/^./, sha[0] === '0' ? '1' : '0') })).rejects.toThrow(FetchCachedError);
    expect(cache.store.size).toBe(0);
    expect(await fetchWeights(URL, { fetch: s.fetch, cache, sha256: sha })).toEqual(bytes);
    expect(cache.store.size).toBe(1);
    const progress: FetchProgress[] = [];
    expect(await fetchWeights(URL, { fetch: s.fetch, cache, sha256: sha, onProgress: (p) => progress.push(p) })).toEqual(bytes);
    expect(s.calls.length).toBe(2); // the third call was a cache hit
    expect(progress.at(-1)).toMatchObject({ loaded: 1000, cached: true });
  });

  it('drops a cached copy that no longer matches and downloads again', async () => {
    const cache = memoryCache();
    cache.store.set(URL, new Response(new Uint8Array([1, 2, 3])));
    const s = server(bytes);
    expect(await fetchCached(URL, { fetch: s.fetch, cache, size: 1000 })).toEqual(bytes);
    expect(s.calls).toEqual([URL]);
    expect(new Uint8Array(await ((await cache.match(URL)) as Response).arrayBuffer())).toEqual(bytes);
  });
});
