// Runs the esbuild bundle of browser.ts (built from the tarballs) in headless Chromium (Debian's `chromium`, WebGPU on
// SwiftShader): the README's training loop in a browser, whose loss must fall. Skipped, saying so, without Chromium.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.log(`pack-check: browser run skipped: no Chromium at ${executablePath} (apt-get install chromium)`);
  process.exit(0);
}
const { chromium } = await import('playwright-core');
const page = `<!doctype html><script type="module">
import { trainReadmeExample } from './browser.js';
trainReadmeExample(15).then((r) => { window.result = r; }, (e) => { window.result = { error: String(e) }; });
</script>`;
const server = createServer((req, res) => {
  if (req.url === '/browser.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync('out/browser.js'));
  else res.writeHead(200, { 'content-type': 'text/html' }).end(page);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const browser = await chromium.launch({
  executablePath,
  args: ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const tab = await browser.newPage();
  await tab.goto(`http://127.0.0.1:${server.address().port}/`);
  await tab.waitForFunction(() => window.result, null, { timeout: 300_000 });
  const r = await tab.evaluate(() => window.result);
  assert.equal(r.error, undefined, r.error);
  assert.ok(Number.isFinite(r.first) && r.last < r.first, `loss ${r.first} -> ${r.last}`);
  console.log(`pack-check: README training loop in headless Chromium on ${r.adapter}: loss ${r.first.toFixed(3)} -> ${r.last.toFixed(3)} in 15 steps`);
} finally {
  await browser.close();
  server.close();
}
