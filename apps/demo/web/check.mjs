// Opens the browser demo in headless Chromium (Debian's, WebGPU on SwiftShader), waits for training and
// evaluation to finish, saves a screenshot and prints the page's result. Usage (after `pnpm web:build`):
//   node web/check.mjs [steps] [screenshot.png]     — needs `apt-get install chromium`
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const steps = Number(process.argv[2] ?? 200);
const shot = process.argv[3] ?? join(here, 'demo.png');
const port = 8000 + Math.floor(Math.random() * 1000);
const server = spawn(process.execPath, [join(here, 'serve.mjs'), String(port)], { stdio: 'inherit' });
await new Promise((r) => setTimeout(r, 500));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  page.on('console', (m) => console.error(`[page] ${m.text()}`));
  await page.goto(`http://127.0.0.1:${port}/?steps=${steps}`);
  await page.waitForFunction(() => document.body.dataset.accuracy || document.body.dataset.error, null, { timeout: 600_000 });
  const result = await page.evaluate(() => ({ accuracy: document.body.dataset.accuracy, error: document.body.dataset.error, status: document.getElementById('status')?.textContent }));
  await page.screenshot({ path: shot, fullPage: true });
  console.log(JSON.stringify(result));
  if (result.error) process.exitCode = 1;
} finally {
  await browser.close();
  server.kill();
}
