// A tiny static file server for the built demo (web/dist/, `pnpm web:build`): files only, by extension, nothing
// demo-specific, so what works here works from any static host. `--base /a/path/` serves the folder under that
// path (the checks use it to show every URL in the build is relative); `--dir` serves another folder.
// Usage: node web/serve.mjs [port] [--base /path/] [--dir folder]  (port 0 = any free one, printed). 127.0.0.1 only.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i < 0 ? fallback : args.splice(i, 2)[1];
};
const base = flag('--base', '/');
const dir = resolve(flag('--dir', join(here, 'dist')));
const port = Number(args[0] ?? 8080);
if (!/^\/(.+\/)?$/.test(base)) throw new Error(`serve: --base must start and end with '/', got ${base}`);
if (!existsSync(join(dir, 'index.html'))) throw new Error(`serve: no index.html in ${dir} (run pnpm web:build first)`);
// .gz as application/gzip with no content-encoding, as most static hosts send it: the worker gunzips the bytes
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm', '.txt': 'text/plain; charset=utf-8', '.png': 'image/png', '.gz': 'application/gzip' };

createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (!path.startsWith(base)) return res.writeHead(404).end('not found');
  const file = normalize(join(dir, path.slice(base.length) || 'index.html'));
  if (!file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end('not found');
  res.writeHead(200, { 'content-type': types[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream', 'content-length': statSync(file).size });
  createReadStream(file).pipe(res);
}).listen(port, '127.0.0.1', function () {
  console.log(`neura demo on http://127.0.0.1:${this.address().port}${base}`);
});
