// The README's screenshots: each model page (MLP, CNN, GPT) of the built demo (web/dist/) in headless Chromium
// (SwiftShader), after a few training steps, the top of the page (chart, results, the e-graph panel's start) saved as
// web/screenshot-<model>.png. Usage (after `pnpm web:build`): node web/screenshots.mjs [mlp,cnn,gpt] [steps]
// (`pnpm web:screenshots` builds first). Needs Chromium like web/check.mjs (CHROMIUM=/path, NEURA_WEB_TIMEOUT_S).
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDemo, withDemoPage } from './browserHarness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const models = (process.argv[2] ?? 'mlp,cnn,gpt').split(',');
const steps = process.argv[3];
// steps per model: enough for the chart to show the loss falling, few enough for a software adapter
const stepsOf = { mlp: steps ?? 150, cnn: steps ?? 60, gpt: steps ?? 60 };
const deadlineS = Number(process.env.NEURA_WEB_TIMEOUT_S ?? 1200);

await withDemoPage(
  'web:screenshots',
  deadlineS,
  async (page, url) => {
    for (const model of models) {
      const r = await loadDemo(page, `${url}?model=${model}&steps=${stepsOf[model]}${model === 'gpt' ? '&sampleEvery=20&tokens=100' : ''}`);
      if (r.error) throw new Error(`web:screenshots: ${model}: ${r.error}`);
      await page.evaluate(() => window.scrollTo(0, 0));
      const path = join(here, `screenshot-${model}.png`);
      await page.screenshot({ path });
      console.log(`web:screenshots: ${path} (${(statSync(path).size / 1024).toFixed(0)} KiB): ${r.status}`);
    }
  },
  { extraArgs: ['--enable-dawn-features=allow_unsafe_apis', '--enable-webgpu-developer-features'], viewport: { width: 1100, height: 760 } },
);
