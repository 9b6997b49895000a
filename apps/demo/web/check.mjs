// Opens the built browser demo (web/dist/) in headless Chromium (Debian's `chromium`, WebGPU on SwiftShader) and, for
// each model page (MLP, CNN, GPT — all train in a Web Worker), trains it, saves a screenshot, reloads the page with
// `?restore=1` and checks that the checkpoint the worker saved in OPFS restores (MNIST: the same test accuracy; GPT:
// the same text for the same prompt and seed), and that the page's main thread had no long task over
// NEURA_LONG_TASK_MS (default 50) during load, compile, training and restore: no task of more than that much main-thread
// CPU time in Chromium's trace (`tdur`); the page's long-task observer (wall clock) is printed beside it, since on a
// busy machine a task of 5 ms of work can wait 100 ms for a core. NEURA_LONG_TASK_WALL_MS also fails on the
// observer's wall-clock long tasks over it (for a quiet machine). Then the static build
// as a host would serve it: web/dist/ copied to a temporary folder, served under a sub-path by the plain static
// server, one MLP step trained there with no failed request. Usage (after `pnpm web:build`):
//   node web/check.mjs [steps] [screenshot.png] [mlp,cnn,gpt]  — steps of the MLP (the CNN ≤ 20, the GPT ≤ 8); screenshots are <screenshot>-<model>.png. Needs
//   Chromium: `apt-get install chromium` (Debian), or CHROMIUM=/path/to/chrome. Never hangs: no Chromium is an
//   immediate error, the servers are always stopped, and the whole check has a deadline (NEURA_WEB_TIMEOUT_S,
//   default 900).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDemo, withDemoPage, withMainThreadTasks } from './browserHarness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const steps = Number(process.argv[2] ?? 40);
// the CNN and the GPT are slower per step on SwiftShader: fewer steps, a short generation and one sample while training
const stepsOf = { mlp: steps, cnn: Math.min(steps, 20), gpt: Math.min(steps, 8) };
const extra = { mlp: '', cnn: '', gpt: '&tokens=32&sampleEvery=4' };
const shot = (process.argv[3] ?? join(here, 'demo.png')).replace(/\.png$/, '');
const models = (process.argv[4] ?? 'mlp,cnn,gpt').split(',');
const deadlineS = Number(process.env.NEURA_WEB_TIMEOUT_S ?? 900);
const longTaskMs = Number(process.env.NEURA_LONG_TASK_MS ?? 50);
const wallMs = Number(process.env.NEURA_LONG_TASK_WALL_MS ?? Number.POSITIVE_INFINITY);

const fail = (what) => {
  throw new Error(`web:check: ${what}`);
};

/** Trains `model` on the page, reloads it with ?restore=1, checks both; returns the long tasks of both loads. */
async function checkModel(page, url, model) {
  const t0 = Date.now();
  const steps = stepsOf[model];
  const first = await withMainThreadTasks(page, longTaskMs, () => loadDemo(page, `${url}?steps=${steps}&model=${model}${extra[model]}`));
  const result = first.result;
  await page.screenshot({ path: `${shot}-${model}.png` });
  const { longTasks, longFrames, nav, script, ...shown } = result;
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
    if (result.samples !== '1') fail(`the GPT page got ${result.samples} samples while training (expected 1, at step 4)`);
  }
  if (result.saved !== `${model}@${steps}`) fail(`${model}: the checkpoint was not saved to OPFS (body[data-saved] is ${JSON.stringify(result.saved)})`);
  // the page again, as a new document: only OPFS carries the weights, restored inside the worker
  const second = await withMainThreadTasks(page, longTaskMs, () => loadDemo(page, `${url}?model=${model}&restore=1${extra[model]}`));
  const again = second.result;
  if (!first.traced || !second.traced) fail(`${model}: the Chromium trace has no 'neura:script' mark: the page's main thread was not found`);
  console.log(JSON.stringify({ restored: again.restored, step: again.step, accuracy: again.accuracy, sample: again.sample, status: again.status }));
  if (again.error) fail(`${model} after the reload: ${again.error}`);
  if (again.restored !== 'true' || again.step !== String(steps)) fail(`${model}: the reload did not restore the step-${steps} checkpoint (restored ${again.restored}, step ${again.step})`);
  if (model === 'gpt' && again.sample !== result.sample) fail(`the restored GPT wrote ${JSON.stringify(again.sample)}, the trained one ${JSON.stringify(result.sample)} (same weights, prompt and seed)`);
  if (model !== 'gpt' && again.accuracy !== result.accuracy) fail(`${model}: the restored weights score ${again.accuracy}, the trained ones ${result.accuracy} (the same weights on the same adapter)`);
  console.log(`web:check: ${model}: navigation timing (ms) of the train page ${JSON.stringify(nav)}, its script ran at ${script}; restore page ${JSON.stringify(again.nav)}, script at ${again.script}; ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  // where the two most blocking frames' time went (Long Animation Frames: scripts, forced layout, style/layout, rendering)
  for (const [load, frames] of [['train', longFrames], ['restore', again.longFrames]])
    for (const f of [...(frames ?? [])].sort((a, b) => b.blocking - a.blocking).slice(0, 2)) if (f.blocking > 0) console.log(`web:check: ${model} ${load} page: a ${f.ms} ms frame at ${f.at} ms (blocking ${f.blocking} ms, style+layout+render ${f.layout} ms, render ${f.render} ms): ${f.scripts.join('; ') || 'no script'}`);
  return {
    observed: [...longTasks.map((t) => ({ ...t, model, load: 'train', script })), ...(again.longTasks ?? []).map((t) => ({ ...t, model, load: 'restore', script: again.script }))],
    traced: [...first.tasks.map((t) => ({ ...t, model, load: 'train' })), ...second.tasks.map((t) => ({ ...t, model, load: 'restore' }))],
  };
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
    const observed = [];
    const traced = [];
    for (const model of models) {
      const r = await checkModel(page, url, model);
      observed.push(...r.observed);
      traced.push(...r.traced);
    }
    const maxWall = Math.max(0, ...observed.map((t) => t.ms));
    const maxCpu = Math.max(0, ...traced.map((t) => t.cpuMs));
    console.log(`web:check: main-thread long tasks (over ${longTaskMs} ms by wall clock) during load, compile, training and restore of ${models.join(', ')}: ${observed.length} seen by the page's observer (max ${maxWall} ms)`);
    for (const t of observed) console.log(`  ${t.ms} ms at ${t.at} ms of the ${t.model} ${t.load} page (${t.name}; ${t.at + t.ms <= t.script ? "before the page's script ran" : `status: ${t.status}`})`);
    console.log(`web:check: the same tasks in Chromium's trace, with the main thread's CPU time (the page's own work; the rest is waiting for a core): max ${maxCpu} ms CPU (limit ${longTaskMs} ms)`);
    for (const t of traced) console.log(`  ${t.wallMs} ms wall, ${t.cpuMs} ms CPU at ${t.atMs} ms after the ${t.model} ${t.load} page's script started`);
    await checkHosted(page, serve);
    if (maxWall > wallMs) fail(`a main-thread long task of ${maxWall} ms by wall clock (NEURA_LONG_TASK_WALL_MS ${wallMs})`);
    if (maxCpu > longTaskMs) fail(`a main-thread task of ${maxCpu} ms of CPU time (limit ${longTaskMs} ms): the page froze`);
  },
  {
    // allow_unsafe_apis exposes timestamp-query (the per-kernel timeline); developer features unquantize it
    extraArgs: ['--enable-dawn-features=allow_unsafe_apis', '--enable-webgpu-developer-features'],
    viewport: { width: 1280, height: 900 },
  },
);
