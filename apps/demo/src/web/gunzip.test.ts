// The worker's MNIST decoding: a gzipped IDX file (zlib's gzip, as MNIST is distributed) decodes to the same
// bytes through DecompressionStream, the compressed size is counted, a body the browser already decoded
// (Content-Encoding: gzip) is taken as it is, and any other body that is not gzip is a typed error.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GunzipError, gunzipResponse } from './gunzip.js';

describe('gunzipResponse', () => {
  it('decodes a gzipped IDX file to its bytes and counts the compressed ones', async () => {
    // an IDX header (magic 0x0803, 3 dims: 2×28×28) and pixel bytes
    const idx = new Uint8Array(16 + 2 * 784);
    idx.set([0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 28, 0, 0, 0, 28]);
    for (let i = 16; i < idx.length; i++) idx[i] = (i * 37) % 256;
    const gz = gzipSync(idx);
    const r = await gunzipResponse(new Response(gz), 'data/x.gz');
    expect(r.bytes).toEqual(idx);
    expect(r.compressedBytes).toBe(gz.length);
  });

  it('takes the bytes as they are when the host sent them with Content-Encoding: gzip (fetch decoded them)', async () => {
    const idx = new Uint8Array([0, 0, 8, 1, 0, 0, 0, 3, 7, 8, 9]);
    const r = await gunzipResponse(new Response(idx, { headers: { 'content-encoding': 'gzip' } }), 'data/x.gz');
    expect(r.bytes).toEqual(idx);
  });

  it('names the file when the body is not gzip', async () => {
    await expect(gunzipResponse(new Response(new Uint8Array([0, 0, 8, 3, 1, 2, 3])), 'data/t10k-images-idx3-ubyte.gz')).rejects.toThrow(GunzipError);
    await expect(gunzipResponse(new Response(new Uint8Array([1, 2, 3])), 'data/t10k.gz')).rejects.toThrow(/data\/t10k.gz: not a valid gzip file/);
  });
});
