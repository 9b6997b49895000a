// Opens the browser demo in headless Chromium (Debian's `chromium`, WebGPU on SwiftShader), waits for training and
// evaluation to finish, saves a screenshot and prints the page's result. Usage (after `pnpm web:build`):
//   node web/check.mjs [steps] [screenshot.png] [model]  — needs Chromium: `apt-get install chromium` (Debian), or
//   CHROMIUM=/path/to/chrome. Never hangs: no Chromium is an immediate error, the server is always stopped, and the
//   whole check has a deadline (NEURA_WEB_TIMEOUT_S, default 600).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const steps = Number(process.argv[2] ?? 200);
const shot = process.argv[3] ?? join(here, 'demo.png');
const model = process.argv[4] ?? 'mlp';
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const deadlineS = Number(process.env.NEURA_WEB_TIMEOUT_S ?? 600);
if (!existsSync(executablePath)) {
  console.error(`web:check: no Chromium at ${executablePath}. Install Debian's: apt-get install chromium (or set CHROMIUM=/path/to/chrome)`);
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
  console.error(`web:check: no result after ${deadlineS} s`);
  cleanup().then(() => process.exit(1));
}, deadlineS * 1000);

try {
  // the server prints its address once it listens (port 0: the OS picks a free one)
  server = spawn(process.execPath, [join(here, 'serve.mjs'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    server.stdout.on('data', (d) => {
      const m = /http:\/\/[\d.]+:\d+\//.exec(String(d));
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error(`web:check: the demo server exited (code ${code})`)));
  });
  browser = await chromium.launch({
    executablePath,
    // allow_unsafe_apis exposes timestamp-query (the per-kernel timeline); developer features unquantize it
    args: ['--enable-unsafe-webgpu', '--enable-dawn-features=allow_unsafe_apis', '--enable-webgpu-developer-features', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) => console.error(`[page] ${m.text()}`));
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
  await page.goto(`${url}?steps=${steps}&model=${model}`);
  await page.waitForFunction(() => document.body.dataset.accuracy || document.body.dataset.error, null, { timeout: deadlineS * 1000 });
  const result = await page.evaluate(() => ({ ...document.body.dataset, status: document.getElementById('status')?.textContent }));
  await page.screenshot({ path: shot, fullPage: true });
  console.log(JSON.stringify(result));
  if (result.error) process.exitCode = 1;
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  await cleanup();
}
