// The browser demo: the same packages as `pnpm mnist`, on WebGPU. Pick a model (MLP or CNN on MNIST, a char-level
// GPT on text from the page's server), watch the loss and accuracy chart while it trains, see what the e-graph
// optimizer did to the step, a profiled step as a per-kernel GPU timeline, and the adapter's limits. Every model
// trains in a Web Worker (src/mnistWorker.ts, src/gptWorker.ts, through `@neura/nn/worker`): the page only draws, so
// it never freezes; the worker keeps the final checkpoint in OPFS and `?restore=1` restores it after a reload (MNIST:
// evaluated; GPT: the page asks the worker for text). Built by `pnpm web:build` (esbuild) into web/dist/, a folder
// any static server can host. URL: ?model=mlp|cnn|gpt&steps=N[&restore=1], for the GPT also [&tokens=N]
// [&sampleEvery=N]. When done, body[data-done] (or data-error) is set for web/check.mjs.

import { requestWorker, trainInWorker, type WorkerEvent } from '@neura/nn/worker';
import type { GenerateRequest, GptConfig, GptResult } from './web/gptMessages.js';
import { NEXT_CHAR_ACCURACY } from './web/gptMessages.js';
import { bytes, esc } from './web/html.js';
import { BATCH_ACCURACY, type MnistConfig, type MnistResult, type PanelMessage } from './web/mnistMessages.js';
import { MODELS, type ModelKind } from './web/modelKinds.js';
import { $, drawChart, showPanel, status } from './web/page.js';

/** Resolves in a later task: the page's start is split in short tasks (each under the 50 ms long-task bar). */
const nextTask = () => new Promise<void>((r) => setTimeout(r, 0));

/** The OPFS folder the demo keeps its checkpoints in (one per model kind). */
const OPFS_DIR = 'neura-demo';

/** The events every run shows the same way: progress, panels, and each step's loss and `metric` on the chart. */
function chartEvents(total: number, metric: string, accName: string) {
  const losses: [number, number][] = [];
  const accs: [number, number][] = [];
  let start = 0;
  const onEvent = (e: WorkerEvent) => {
    if (e.kind === 'progress') status(e.message);
    else if (e.kind === 'message') void showPanel(e.data as PanelMessage);
    else if (e.kind === 'step') {
      start ||= performance.now();
      losses.push([e.step, e.loss ?? Number.NaN]);
    } else if (e.kind === 'metrics') {
      accs.push([e.step, e.metrics[metric]]);
      if (e.step % 10 === 0 || e.step === total) {
        drawChart(losses, accs, total, accName);
        const rate = (accs.length * 1000) / (performance.now() - start);
        status(`step ${e.step}/${total}: loss ${losses[losses.length - 1][1].toFixed(3)} — ${rate.toFixed(1)} steps/s (training in a worker)`);
      }
    }
  };
  return { losses, accs, onEvent };
}

/** Trains (or, with `restore`, restores from OPFS and evaluates) an MNIST model in a worker. */
async function runMnist(kind: 'mlp' | 'cnn', steps: number, restore: boolean): Promise<void> {
  await nextTask(); // the worker starts in a task of its own, not in the one that set the page up
  const worker = new Worker(new URL('mnistWorker.js', import.meta.url), { type: 'module', name: 'neura-mnist' });
  const { losses, onEvent } = chartEvents(steps, BATCH_ACCURACY, 'batch accuracy');
  const run = trainInWorker<MnistConfig, MnistResult>(worker, { kind, steps, opfs: OPFS_DIR, restore }, { onEvent });
  const { result: r } = await run.result;
  // the worker is left to end with the page: terminating a worker that holds a WebGPU device cost a 64 ms
  // main-thread long task in headless Chromium (web:check), and the page trains once per load
  // a PNG the worker drew: the page decodes it off the main thread and draws nothing itself
  $('side').innerHTML = `<h2>test digits: the model’s guesses</h2><img id="digits" width="352" height="240" decoding="async" alt="32 test digits with the model's guesses" src="${URL.createObjectURL(r.digits)}">`;
  const what = `test accuracy ${(r.accuracy * 100).toFixed(2)}% on ${r.device}`;
  status(
    r.restored
      ? `restored the step-${r.step} checkpoint from OPFS (folder '${OPFS_DIR}') after a reload: ${what}`
      : `done: ${steps} steps in ${r.trainS.toFixed(1)} s in a worker (load and compile ${(r.compileMs / 1000).toFixed(1)} s, MNIST ${bytes(r.mnistBytes.transferred)} gzipped → ${bytes(r.mnistBytes.decoded)}, ${r.dispatchesPerStep} dispatches/step), ${what}; saved to OPFS`,
  );
  if (losses.length) document.body.dataset.finalLoss = String(losses[losses.length - 1][1]);
  if (r.saved) document.body.dataset.saved = `${r.saved}@${r.step}`;
  document.body.dataset.step = String(r.step);
  document.body.dataset.mnistBytes = `${r.mnistBytes.transferred}/${r.mnistBytes.decoded}`; // web:check prints it
  document.body.dataset.restored = String(r.restored);
  document.body.dataset.accuracy = String(r.accuracy);
}

/** Asks the GPT worker for text after `prompt`, streaming it into the side panel; returns it. */
async function generate(worker: Worker, req: GenerateRequest): Promise<string> {
  const out = $('sample');
  out.textContent = '';
  out.append(Object.assign(document.createElement('b'), { textContent: req.prompt }), '⟶');
  return requestWorker<string>(worker, req, { onPartial: (c) => out.append(String(c)) });
}

/** Trains (or, with `restore`, restores from OPFS) the char-level GPT in a worker, then generates from it there. */
async function runGpt(steps: number, restore: boolean, params: URLSearchParams): Promise<void> {
  await nextTask(); // the worker starts in a task of its own, not in the one that set the page up
  const worker = new Worker(new URL('gptWorker.js', import.meta.url), { type: 'module', name: 'neura-gpt' });
  const { losses, accs, onEvent } = chartEvents(steps, NEXT_CHAR_ACCURACY, 'next-char accuracy');
  const samples: string[] = [];
  const sampleEvery = Number(params.get('sampleEvery') ?? Math.max(20, 100 * Math.round(steps / 300))); // 100 for 300 steps
  const tokens = Number(params.get('tokens') ?? 120);
  if (!restore) $('side').innerHTML = `<h2>samples while it trains</h2><div id="samples" class="muted">every ${sampleEvery} steps…</div>`;
  const run = trainInWorker<GptConfig, GptResult>(worker, { steps, opfs: OPFS_DIR, restore, sampleEvery }, {
    onEvent(e) {
      if (e.kind !== 'sample') return onEvent(e);
      samples.push(`<p><b>step ${e.step}</b> <code>${esc(e.text)}</code></p>`);
      $('samples').innerHTML = samples.join('');
    },
  });
  const { result: r } = await run.result;
  $('side').innerHTML = `<h2>text from the trained model</h2><pre class="sample" id="sample"></pre>
<div class="bar-top"><input id="prompt" style="width: 260px" aria-label="prompt"><button id="generate">generate</button></div>${samples.length ? `<h3>samples while it trained</h3>${samples.join('')}` : ''}`;
  const prompt = $<HTMLInputElement>('prompt');
  prompt.value = r.prompt;
  const what = `${r.vocab} characters of vocabulary, ${r.corpusChars.toLocaleString('en')} of text, on ${r.device}`;
  const head = r.restored
    ? `restored the step-${r.step} checkpoint from OPFS (folder '${OPFS_DIR}') after a reload (${what})`
    : `done: ${steps} steps in ${r.trainS.toFixed(1)} s in a worker (load and compile ${(r.compileMs / 1000).toFixed(1)} s, ${r.dispatchesPerStep} dispatches/step, ${what}); saved to OPFS`;
  status(`${head}; generating text in the worker…`);
  // a fixed prompt and seed: the same weights give the same text (web:check compares it after the reload)
  const sample = await generate(worker, { prompt: r.prompt, maxTokens: tokens, seed: 1 });
  $('generate').addEventListener('click', () => {
    generate(worker, { prompt: prompt.value, maxTokens: 160, seed: Math.floor(Math.random() * 1e9) }).catch((e) => status(`error: ${e instanceof Error ? e.message : String(e)}`));
  });
  if (losses.length) {
    document.body.dataset.finalLoss = String(losses[losses.length - 1][1]);
    const last = accs.slice(-20);
    document.body.dataset.accuracy = String(last.reduce((a, [, v]) => a + v, 0) / last.length);
  }
  if (r.saved) document.body.dataset.saved = `${r.saved}@${r.step}`;
  document.body.dataset.step = String(r.step);
  document.body.dataset.restored = String(r.restored);
  document.body.dataset.sample = sample;
  document.body.dataset.samples = String(samples.length);
  status(`${head}; text generated in the worker`);
}

async function main(): Promise<void> {
  performance.mark('neura:script'); // web:check tells long tasks before the page's own code from those after
  const params = new URLSearchParams(location.search);
  const kind = (params.get('model') ?? 'mlp') as ModelKind;
  if (!(kind in MODELS)) throw new Error(`unknown model '${kind}' (mlp, cnn or gpt)`);
  const steps = Number(params.get('steps') ?? (kind === 'gpt' ? 300 : 600));
  if (!(Number.isInteger(steps) && steps > 0)) throw new Error(`steps must be a positive integer, got '${params.get('steps')}'`);
  const select = $<HTMLSelectElement>('model');
  select.innerHTML = Object.entries(MODELS).map(([k, v]) => `<option value="${k}"${k === kind ? ' selected' : ''}>${esc(v)}</option>`).join('');
  $<HTMLInputElement>('steps').value = String(steps);
  $('go').addEventListener('click', () => {
    location.search = `?model=${select.value}&steps=${$<HTMLInputElement>('steps').value}`;
  });
  $('restore').addEventListener('click', () => {
    location.search = `?model=${select.value}&restore=1`;
  });
  document.body.dataset.model = kind;
  await nextTask();
  const restore = params.get('restore') === '1';
  if (kind === 'gpt') await runGpt(steps, restore, params);
  else await runMnist(kind, steps, restore);
  document.body.dataset.done = '1';
}

main().catch((e) => {
  status(`error: ${e instanceof Error ? e.message : String(e)}`);
  document.body.dataset.error = String(e);
});
