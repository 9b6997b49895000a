// Downloading weights and data in a browser (or Node 20+): the Cache API when present (a verified copy is served
// from it, a corrupt one dropped and fetched again), progress read from the response stream, and integrity checks
// (byte size, SHA-256 through crypto.subtle). Every failure is a FetchCachedError naming the URL and the mismatch.

/** Progress of a download: bytes so far and the total when known (Content-Length or the expected `size`). */
export interface FetchProgress {
  readonly url: string;
  readonly loaded: number;
  readonly total?: number;
  /** Served from the Cache API (no download). */
  readonly cached: boolean;
}

/** The cache interface used (the Cache API's `Cache`, or any object with the same three methods). */
export interface ResponseCache {
  match(url: string): Promise<Response | undefined>;
  put(url: string, response: Response): Promise<void>;
  delete(url: string): Promise<boolean>;
}

/** Options of `fetchCached`. */
export interface FetchCachedOptions {
  /** Expected SHA-256 of the bytes, hex (64 digits, any case). */
  sha256?: string;
  /** Expected size in bytes. */
  size?: number;
  onProgress?: (p: FetchProgress) => void;
  /** A Cache API cache name (default 'neura'), a cache object, or false for none. Ignored where `caches` is absent. */
  cache?: string | ResponseCache | false;
  /** The fetch to use (default: the global one); `init` is passed to it. */
  fetch?: (url: string, init?: RequestInit) => Promise<Response>;
  init?: RequestInit;
}

/** Why a download failed: an HTTP status, a wrong size or hash, or a malformed expectation. */
export type FetchFailure = 'http' | 'size' | 'sha256' | 'option';

/** A download that failed or did not match what was expected; names the URL and both values. */
export class FetchCachedError extends Error {
  constructor(
    readonly url: string,
    readonly failure: FetchFailure,
    readonly expected: string | number | undefined,
    readonly actual: string | number | undefined,
    detail: string,
  ) {
    super(`fetch ${url}: ${detail}`);
    this.name = 'FetchCachedError';
  }
}

/** SHA-256 of `bytes` as lowercase hex (crypto.subtle: browsers in secure contexts, workers, Node 20+). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('sha256Hex: crypto.subtle is not available (browsers expose it only in secure contexts: https or localhost)');
  const d = new Uint8Array(await subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function readBody(url: string, r: Response, total: number | undefined, cached: boolean, onProgress?: (p: FetchProgress) => void): Promise<Uint8Array> {
  if (!r.body) {
    const bytes = new Uint8Array(await r.arrayBuffer());
    onProgress?.({ url, loaded: bytes.length, total: total ?? bytes.length, cached });
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  const reader = r.body.getReader();
  onProgress?.({ url, loaded: 0, total, cached });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress?.({ url, loaded, total, cached });
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The integrity problem of `bytes`, or undefined when they match. */
async function mismatch(url: string, bytes: Uint8Array, opts: FetchCachedOptions): Promise<FetchCachedError | undefined> {
  if (opts.size !== undefined && bytes.length !== opts.size)
    return new FetchCachedError(url, 'size', opts.size, bytes.length, `expected ${opts.size} bytes, got ${bytes.length}`);
  if (opts.sha256 !== undefined) {
    const actual = await sha256Hex(bytes);
    if (actual !== opts.sha256.toLowerCase()) return new FetchCachedError(url, 'sha256', opts.sha256.toLowerCase(), actual, `SHA-256 is ${actual}, expected ${opts.sha256.toLowerCase()}`);
  }
}

async function openCache(c: FetchCachedOptions['cache']): Promise<ResponseCache | undefined> {
  if (c === false) return;
  if (c !== undefined && typeof c !== 'string') return c;
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  return storage ? storage.open(c ?? 'neura') : undefined;
}

/**
 * Fetches `url` as bytes, checking `size` and `sha256` when given. With a cache, a stored copy that still matches is
 * returned without a download; one that does not is deleted and fetched again; a fresh download is stored only
 * after it passed the checks. Throws FetchCachedError.
 */
export async function fetchCached(url: string, opts: FetchCachedOptions = {}): Promise<Uint8Array> {
  if (opts.sha256 !== undefined && !/^[0-9a-fA-F]{64}$/.test(opts.sha256))
    throw new FetchCachedError(url, 'option', undefined, opts.sha256, `sha256 must be 64 hex digits, got ${JSON.stringify(opts.sha256)}`);
  if (opts.size !== undefined && !(Number.isSafeInteger(opts.size) && opts.size >= 0))
    throw new FetchCachedError(url, 'option', undefined, opts.size, `size must be a non-negative integer, got ${opts.size}`);
  const cache = await openCache(opts.cache);
  const hit = await cache?.match(url);
  if (hit) {
    const bytes = await readBody(url, hit, opts.size, true, opts.onProgress);
    if (!(await mismatch(url, bytes, opts))) return bytes;
    await cache?.delete(url); // a stale or corrupt copy: fetch again
  }
  const doFetch = opts.fetch ?? ((u: string, i?: RequestInit) => globalThis.fetch(u, i));
  const r = await doFetch(url, opts.init);
  if (!r.ok) throw new FetchCachedError(url, 'http', 200, r.status, `HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ''}`);
  const length = Number(r.headers.get('content-length') ?? Number.NaN);
  // Content-Length of a compressed response counts encoded bytes: only trust it for progress without an encoding
  const total = opts.size ?? (Number.isFinite(length) && !r.headers.get('content-encoding') ? length : undefined);
  const bytes = await readBody(url, r, total, false, opts.onProgress);
  const bad = await mismatch(url, bytes, opts);
  if (bad) throw bad;
  await cache?.put(url, new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': r.headers.get('content-type') ?? 'application/octet-stream', 'content-length': String(bytes.length) } }));
  return bytes;
}

/** `fetchCached` for model weights: the same checks, in the Cache API cache 'neura-weights' by default. */
export function fetchWeights(url: string, opts: FetchCachedOptions = {}): Promise<Uint8Array> {
  return fetchCached(url, { cache: 'neura-weights', ...opts });
}
