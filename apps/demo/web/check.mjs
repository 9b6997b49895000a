// Opens the browser demo in headless Chromium (Debian's `chromium`, WebGPU on SwiftShader), waits for training and
// evaluation to finish, saves a screenshot and prints the page's result. For the MNIST models (trained in a Web
// Worker) it also checks that the page's main thread had no long task (PerformanceObserver 'longtask', > 50 ms)
// during load, compile and training, that the final checkpoint was saved to OPFS, and that after a reload
// `?restore=1` restores it (in the worker) to the same test accuracy. Usage (after `pnpm web:build`):
//   node web/check.mjs [steps] [screenshot.png] [model]  — needs Chromium: `apt-get install chromium` (Debian), or
//   CHROMIUM=/path/to/chrome. Never hangs: no Chromium is an immediate error, the server is always stopped, and the
//   whole check has a deadline (NEURA_WEB_TIMEOUT_S, default 600). NEURA_LONG_TASK_MS raises the long-task limit.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withDemoPage } from './browserHarness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const steps = Number(process.argv[2] ?? 200);
const shot = process.argv[3] ?? join(here, 'demo.png');
const model = process.argv[4] ?? 'mlp';
const deadlineS = Number(process.env.NEURA_WEB_TIMEOUT_S ?? 600);
const longTaskMs = Number(process.env.NEURA_LONG_TASK_MS ?? 50);

/** Loads `url`, waits for the page's result and returns body's dataset, the status line and the long tasks seen. */
async function load(page, url) {
  await page.goto(url);
  // polled from here, not page.waitForFunction: that evaluates Playwright's injected script (~100 ms of main
  // thread in headless Chromium on a busy machine), a long task of the check, not of the page
  for (;;) {
    const r = await page.evaluate(() => ({ ...document.body.dataset, status: document.getElementById('status')?.textContent, longTasks: window.__longTasks ?? null, nav: (({ responseEnd, domInteractive }) => ({ responseEnd: Math.round(responseEnd), domInteractive: Math.round(domInteractive) }))(performance.getEntriesByType('navigation')[0] ?? {}), script: Math.round(performance.getEntriesByName('neura:script')[0]?.startTime ?? -1) }));
    if (r.accuracy || r.error) return r;
    await new Promise((res) => setTimeout(res, 500));
  }
}

const fail = (what) => {
  throw new Error(`web:check: ${what}`);
};

await withDemoPage(
  'web:check',
  deadlineS,
  async (page, url) => {
    const result = await load(page, `${url}?steps=${steps}&model=${model}`);
    await page.screenshot({ path: shot, fullPage: true });
    const { longTasks, nav, script, ...shown } = result;
    console.log(JSON.stringify(shown));
    if (result.error) fail(result.error);
    if (model !== 'gpt') {
      // MNIST comes gzipped (web/data.mjs) and is gunzipped in the worker: about 11 MB over the wire, not 55 MB
      const [transferred, decoded] = String(result.mnistBytes).split('/').map(Number);
      console.log(`web:check: MNIST transferred ${(transferred / 1e6).toFixed(1)} MB gzipped, decoded to ${(decoded / 1e6).toFixed(1)} MB`);
      if (!(transferred > 0 && transferred < decoded / 3)) fail(`MNIST was not fetched gzipped (body[data-mnist-bytes] is ${JSON.stringify(result.mnistBytes)})`);
    }
    if (model === 'gpt') return; // the GPT trains on the page: no worker, no OPFS
    // the page again, as a new document: only OPFS carries the weights, restored inside the worker
    const again = await load(page, `${url}?model=${model}&restore=1`);
    console.log(JSON.stringify({ restored: again.restored, step: again.step, accuracy: again.accuracy, status: again.status }));
    if (again.error) fail(`after the reload: ${again.error}`);
    const tasks = [...(longTasks ?? []).map((t) => ({ ...t, load: 'train', script: result.script })), ...(again.longTasks ?? []).map((t) => ({ ...t, load: 'restore', script: again.script }))];
    console.log(`web:check: navigation timing (ms) of the train page ${JSON.stringify(result.nav)}, its script ran at ${result.script}; restore page ${JSON.stringify(again.nav)}, script at ${again.script}`);
    const max = tasks.length ? Math.max(...tasks.map((t) => t.ms)) : 0;
    console.log(`web:check: main-thread long tasks during load, compile, training and restore: ${tasks.length} (max ${max} ms)`);
    for (const t of tasks) console.log(`  ${t.ms} ms at ${t.at} ms of the ${t.load} page (${t.name}; ${t.at + t.ms <= t.script ? "before the page's script ran" : `status: ${t.status}`})`);
    if (longTasks === null) fail('the page has no long-task observer (window.__longTasks)');
    if (result.saved !== `${model}@${steps}`) fail(`the checkpoint was not saved to OPFS (body[data-saved] is ${JSON.stringify(result.saved)})`);
    if (again.restored !== 'true' || again.step !== String(steps)) fail(`the reload did not restore the step-${steps} checkpoint (restored ${again.restored}, step ${again.step})`);
    if (again.accuracy !== result.accuracy) fail(`the restored weights score ${again.accuracy}, the trained ones ${result.accuracy} (the same weights on the same adapter)`);
    if (max > longTaskMs) fail(`a main-thread long task of ${max} ms (limit ${longTaskMs} ms): the page froze`);
  },
  {
    // allow_unsafe_apis exposes timestamp-query (the per-kernel timeline); developer features unquantize it
    extraArgs: ['--enable-dawn-features=allow_unsafe_apis', '--enable-webgpu-developer-features'],
    viewport: { width: 1280, height: 900 },
  },
);
