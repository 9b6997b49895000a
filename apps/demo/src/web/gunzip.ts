// Gunzips a fetched gzip file (MNIST's `*-ubyte.gz`, as the IDX files are distributed) with the platform's
// DecompressionStream('gzip'), counting the compressed bytes that came over the wire. A host that sends the file
// with `Content-Encoding: gzip` has the browser decode it already: those bytes are used as they are. Browser- and
// Node-safe.

/** The decoded bytes and how many compressed bytes the response carried. */
export interface Gunzipped {
  readonly bytes: Uint8Array;
  readonly compressedBytes: number;
}

/** Thrown when a response's body is not a valid gzip stream (names what was fetched). */
export class GunzipError extends Error {
  override readonly name = 'GunzipError';
}

/** Decodes the gzip body of `response` (fetched from `what`, named in errors), streaming. */
export async function gunzipResponse(response: Response, what: string): Promise<Gunzipped> {
  if (!response.body) throw new GunzipError(`${what}: the response has no body`);
  if (/\bgzip\b/i.test(response.headers.get('content-encoding') ?? '')) {
    // fetch decoded it (the host sent the .gz with Content-Encoding: gzip); the wire size is not visible here
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { bytes, compressedBytes: bytes.length };
  }
  let compressedBytes = 0;
  const count = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, ctl) {
      compressedBytes += chunk.byteLength;
      ctl.enqueue(chunk);
    },
  });
  try {
    const plain = response.body.pipeThrough(count).pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>);
    const bytes = new Uint8Array(await new Response(plain).arrayBuffer());
    return { bytes, compressedBytes };
  } catch (e) {
    throw new GunzipError(`${what}: not a valid gzip file (${e instanceof Error ? e.message : String(e)})`);
  }
}
