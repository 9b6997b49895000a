// Opens the built browser demo (web/dist/) in headless Chromium (Debian's `chromium`, WebGPU on SwiftShader) and, for
// each model page (MLP, CNN, GPT — all train in a Web Worker), trains it, saves a screenshot, reloads the page with
// `?restore=1` and checks that the checkpoint the worker saved in OPFS restores (MNIST: the same test accuracy; GPT:
// the same text for the same prompt and seed), and that the page's main thread had no long task (PerformanceObserver
// 'longtask') over NEURA_LONG_TASK_MS (default 50) during load, compile, training and restore. Then the static build
// as a host would serve it: web/dist/ copied to a temporary folder, served under a sub-path by the plain static
// server, one MLP step trained there with no failed request. Usage (after `pnpm web:build`):
//   node web/check.mjs [steps] [screenshot.png] [mlp,cnn,gpt]  — steps of the MLP (the CNN ≤ 20, the GPT ≤ 10); screenshots are <screenshot>-<model>.png. Needs
//   Chromium: `apt-get install chromium` (Debian), or CHROMIUM=/path/to/chrome. Never hangs: no Chromium is an
//   immediate error, the servers are always stopped, and the whole check has a deadline (NEURA_WEB_TIMEOUT_S,
//   default 900).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDemo, withDemoPage } from './browserHarness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const steps = Number(process.argv[2] ?? 40);
// the CNN and the GPT are slower per step on SwiftShader: fewer steps, a short generation and one sample while training
const stepsOf = { mlp: steps, cnn: Math.min(steps, 20), gpt: Math.min(steps, 10) };
const extra = { mlp: '', cnn: '', gpt: '&tokens=40&sampleEvery=5' };
const shot = (process.argv[3] ?? join(here, 'demo.png')).replace(/\.png$/, '');
const models = (process.argv[4] ?? 'mlp,cnn,gpt').split(',');
const deadlineS = Number(process.env.NEURA_WEB_TIMEOUT_S ?? 900);
const longTaskMs = Number(process.env.NEURA_LONG_TASK_MS ?? 50);

const fail = (what) => {
  throw new Error(`web:check: ${what}`);
};

/** Trains `model` on the page, reloads it with ?restore=1, checks both; returns the long tasks of both loads. */
async function checkModel(page, url, model) {
  const t0 = Date.now();
  const steps = stepsOf[model];
  const result = await loadDemo(page, `${url}?steps=${steps}&model=${model}${extra[model]}`);
  await page.screenshot({ path: `${shot}-${model}.png` });
  const { longTasks, nav, script, ...shown } = result;
  console.log(JSON.stringify(shown));
  if (result.error) fail(`${model}: ${result.error}`);
  if (longTasks === null) fail('the page has no long-task observer (window.__longTasks)');
  if (model !== 'gpt') {
    // MNIST comes gzipped (web/build.mjs) and is gunzipped in the worker: about 11 MB over the wire, not 55 MB
    const [transferred, decoded] = String(result.mnistBytes).split('/').map(Number);
    console.log(`web:check: MNIST transferred ${(transferred / 1e6).toFixed(1)} MB gzipped, decoded to ${(decoded / 1e6).toFixed(1)} MB`);
    if (!(transferred > 0 && transferred < decoded / 3)) fail(`MNIST was not fetched gzipped (body[data-mnist-bytes] is ${JSON.stringify(result.mnistBytes)})`);
  } else {
    if (!(result.sample?.length > 0)) fail('the GPT worker generated no text');
    if (result.samples !== '1') fail(`the GPT page got ${result.samples} samples while training (expected 1, at step 5)`);
  }
  if (result.saved !== `${model}@${steps}`) fail(`${model}: the checkpoint was not saved to OPFS (body[data-saved] is ${JSON.stringify(result.saved)})`);
  // the page again, as a new document: only OPFS carries the weights, restored inside the worker
  const again = await loadDemo(page, `${url}?model=${model}&restore=1${extra[model]}`);
  console.log(JSON.stringify({ restored: again.restored, step: again.step, accuracy: again.accuracy, sample: again.sample, status: again.status }));
  if (again.error) fail(`${model} after the reload: ${again.error}`);
  if (again.restored !== 'true' || again.step !== String(steps)) fail(`${model}: the reload did not restore the step-${steps} checkpoint (restored ${again.restored}, step ${again.step})`);
  if (model === 'gpt' && again.sample !== result.sample) fail(`the restored GPT wrote ${JSON.stringify(again.sample)}, the trained one ${JSON.stringify(result.sample)} (same weights, prompt and seed)`);
  if (model !== 'gpt' && again.accuracy !== result.accuracy) fail(`${model}: the restored weights score ${again.accuracy}, the trained ones ${result.accuracy} (the same weights on the same adapter)`);
  console.log(`web:check: ${model}: navigation timing (ms) of the train page ${JSON.stringify(nav)}, its script ran at ${script}; restore page ${JSON.stringify(again.nav)}, script at ${again.script}; ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return [...longTasks.map((t) => ({ ...t, model, load: 'train', script })), ...(again.longTasks ?? []).map((t) => ({ ...t, model, load: 'restore', script: again.script }))];
}

/** web/dist/ copied elsewhere and served under a sub-path by the plain static server: one MLP step, no failed request. */
async function checkHosted(page, serve) {
  const dir = mkdtempSync(join(tmpdir(), 'neura-demo-'));
  try {
    cpSync(join(here, 'dist'), dir, { recursive: true });
    const url = await serve(['--dir', dir, '--base', '/hosted/neura-demo/']);
    const failed = [];
    const onResponse = (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) failed.push(`${r.status()} ${r.url()}`);
    };
    page.on('response', onResponse);
    const r = await loadDemo(page, `${url}?model=mlp&steps=1`);
    page.off('response', onResponse);
    console.log(`web:check: the static build copied to a temporary folder, served at ${url}: ${r.error ? `error ${r.error}` : `1 step, loss ${Number(r.finalLoss).toFixed(3)}, test accuracy ${r.accuracy}`}`);
    if (r.error) fail(`the static build at ${url}: ${r.error}`);
    if (failed.length) fail(`the static build at ${url} had failed requests: ${failed.join(', ')}`);
    if (r.step !== '1' || !Number.isFinite(Number(r.finalLoss))) fail(`the static build at ${url} did not train a step (step ${r.step}, loss ${r.finalLoss})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await withDemoPage(
  'web:check',
  deadlineS,
  async (page, url, { serve }) => {
    const tasks = [];
    for (const model of models) tasks.push(...(await checkModel(page, url, model)));
    const max = tasks.length ? Math.max(...tasks.map((t) => t.ms)) : 0;
    console.log(`web:check: main-thread long tasks during load, compile, training and restore of ${models.join(', ')}: ${tasks.length} (max ${max} ms, limit ${longTaskMs} ms)`);
    for (const t of tasks) console.log(`  ${t.ms} ms at ${t.at} ms of the ${t.model} ${t.load} page (${t.name}; ${t.at + t.ms <= t.script ? "before the page's script ran" : `status: ${t.status}`})`);
    if (max > longTaskMs) fail(`a main-thread long task of ${max} ms (limit ${longTaskMs} ms): the page froze`);
    await checkHosted(page, serve);
  },
  {
    // allow_unsafe_apis exposes timestamp-query (the per-kernel timeline); developer features unquantize it
    extraArgs: ['--enable-dawn-features=allow_unsafe_apis', '--enable-webgpu-developer-features'],
    viewport: { width: 1280, height: 900 },
  },
);
