// The IndexedDB matmul tuning cache in a real browser (headless Chromium, WebGPU on SwiftShader): opens
// web/tuning.html?mode=write (a training step compiled with autotune: every matmul shape measured, the choices
// saved in IndexedDB), reloads the page as ?mode=read (new page, new cache object, the database reopened) and
// checks that the same compile read every choice back and measured nothing, with the same table. Exits 1 on any
// failure, naming it. Usage (after `pnpm web:build`): node web/tuningCheck.mjs; with `tune SHAPES [repeats]`
// instead it prints the tuner's table for those shapes on this browser's adapter (shipped-table measurements), with
// `ab [rounds]` the GPT 2×128 step's time with and without the adapter's shipped table.
// Needs Chromium like web/check.mjs (CHROMIUM=/path, deadline NEURA_WEB_TIMEOUT_S, default 300).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const deadlineS = Number(process.env.NEURA_WEB_TIMEOUT_S ?? 300);
if (!existsSync(executablePath)) {
  console.error(`tuningCheck: no Chromium at ${executablePath}. Install Debian's: apt-get install chromium (or set CHROMIUM=/path/to/chrome)`);
  process.exit(1);
}
const { chromium } = await import('playwright-core');

let server;
let browser;
const cleanup = async () => {
  server?.kill();
  await browser?.close().catch(() => {});
};
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => cleanup().then(() => process.exit(130)));
const timer = setTimeout(() => {
  console.error(`tuningCheck: no result after ${deadlineS} s`);
  cleanup().then(() => process.exit(1));
}, deadlineS * 1000);

/** Loads `url` in `page` and returns its parsed body[data-result]; a page error throws. */
async function result(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.result || document.body.dataset.error, null, { timeout: deadlineS * 1000 });
  const { result: r, error } = await page.evaluate(() => ({ ...document.body.dataset }));
  if (error) throw new Error(`page ${url}: ${error}`);
  return JSON.parse(r);
}

const fail = (what) => {
  throw new Error(`tuningCheck: ${what}`);
};

try {
  server = spawn(process.execPath, [join(here, 'serve.mjs'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    server.stdout.on('data', (d) => {
      const m = /http:\/\/[\d.]+:\d+\//.exec(String(d));
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error(`tuningCheck: the demo server exited (code ${code})`)));
  });
  browser = await chromium.launch({
    executablePath,
    args: ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage();
  page.on('console', (m) => console.error(`[page] ${m.text()}`));
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
  if (process.argv[2] === 'tune') {
    const r = await result(page, `${url}tuning.html?mode=tune&shapes=${process.argv[3] ?? ''}&repeats=${process.argv[4] ?? 3}`);
    console.log(JSON.stringify(r, null, 1));
  } else if (process.argv[2] === 'ab') {
    console.log(JSON.stringify(await result(page, `${url}tuning.html?mode=ab&rounds=${process.argv[3] ?? 4}`), null, 1));
  } else {
    const first = await result(page, `${url}tuning.html?mode=write`);
    console.log(`write: adapter '${first.adapter}', ${first.shapes} matmul shapes, ${first.measured} measured, table ${JSON.stringify(first.tuning)}, loss ${first.loss}`);
    if (!(first.shapes > 0) || first.measured !== first.shapes) fail(`the first compile measured ${first.measured} of ${first.shapes} shapes (expected all: the database was deleted)`);
    if (first.record?.adapter !== first.adapter || JSON.stringify(first.record?.entries) !== JSON.stringify(first.tuning)) fail(`IndexedDB holds ${JSON.stringify(first.record)}, not the table measured`);
    // the page again (a new document: new cache object, the database reopened); only IndexedDB carries the choices
    const second = await result(page, `${url}tuning.html?mode=read`);
    console.log(`read (after a reload): ${second.measured} measured, ${second.cached} of ${second.shapes} from IndexedDB, table ${JSON.stringify(second.tuning)}, loss ${second.loss}`);
    if (second.measured !== 0) fail(`the second compile measured ${second.measured} shapes (expected 0: every choice is in IndexedDB)`);
    if (second.cached !== second.shapes || JSON.stringify(second.tuning) !== JSON.stringify(first.tuning)) fail(`the second compile's table ${JSON.stringify(second.tuning)} differs from the first's ${JSON.stringify(first.tuning)}`);
    if (second.warnings.length || first.warnings.length) fail(`warnings: ${[...first.warnings, ...second.warnings].join('; ')}`);
    if (!Number.isFinite(first.loss) || first.loss !== second.loss) fail(`losses ${first.loss} and ${second.loss} (the same step on the same weights) differ`);
    console.log('tuningCheck: the IndexedDB tuning cache round-trips in Chromium');
  }
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  await cleanup();
}
