// Opens the browser demo in headless Chromium (Debian's `chromium`, WebGPU on SwiftShader), waits for training and
// evaluation to finish, saves a screenshot and prints the page's result. Usage (after `pnpm web:build`):
//   node web/check.mjs [steps] [screenshot.png] [model]  — needs Chromium: `apt-get install chromium` (Debian), or
//   CHROMIUM=/path/to/chrome. Never hangs: no Chromium is an immediate error, the server is always stopped, and the
//   whole check has a deadline (NEURA_WEB_TIMEOUT_S, default 600).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withDemoPage } from './browserHarness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const steps = Number(process.argv[2] ?? 200);
const shot = process.argv[3] ?? join(here, 'demo.png');
const model = process.argv[4] ?? 'mlp';
const deadlineS = Number(process.env.NEURA_WEB_TIMEOUT_S ?? 600);

await withDemoPage(
  'web:check',
  deadlineS,
  async (page, url) => {
    await page.goto(`${url}?steps=${steps}&model=${model}`);
    await page.waitForFunction(() => document.body.dataset.accuracy || document.body.dataset.error, null, { timeout: deadlineS * 1000 });
    const result = await page.evaluate(() => ({ ...document.body.dataset, status: document.getElementById('status')?.textContent }));
    await page.screenshot({ path: shot, fullPage: true });
    console.log(JSON.stringify(result));
    if (result.error) process.exitCode = 1;
  },
  {
    // allow_unsafe_apis exposes timestamp-query (the per-kernel timeline); developer features unquantize it
    extraArgs: ['--enable-dawn-features=allow_unsafe_apis', '--enable-webgpu-developer-features'],
    viewport: { width: 1280, height: 900 },
  },
);
