// The browser demo: the same packages as `pnpm mnist`, on WebGPU. Pick a model (MLP or CNN on MNIST, a char-level
// GPT on text from the page's server), watch the loss and accuracy chart while it trains, see what the e-graph
// optimizer did to the step, a profiled step as a per-kernel GPU timeline, and the adapter's limits. The MNIST
// models train in a Web Worker (src/mnistWorker.ts, through `@neura/nn/worker`): the page only draws, so it never
// freezes; the worker keeps the final checkpoint in OPFS and `?restore=1` evaluates it after a reload. The GPT trains on
// the page (src/gptPage.ts, loaded on demand). Built by `pnpm web:build` (esbuild), served by web/serve.mjs.
// URL: ?model=mlp|cnn|gpt&steps=N[&restore=1]. When done, body[data-accuracy] (or data-error) is set for web/check.mjs.

import { trainInWorker } from '@neura/nn/worker';
import { bytes, esc } from './web/html.js';
import { BATCH_ACCURACY, type MnistConfig, type MnistResult, type PanelMessage } from './web/mnistMessages.js';
import { MODELS, type ModelKind } from './web/modelKinds.js';
import { $, drawChart, status } from './web/page.js';

/** The OPFS folder the demo keeps its checkpoints in (one per model kind). */
const OPFS_DIR = 'neura-demo';

/** Trains (or, with `restore`, restores from OPFS and evaluates) an MNIST model in a worker. */
async function runMnist(kind: 'mlp' | 'cnn', steps: number, restore: boolean): Promise<void> {
  const worker = new Worker(new URL('mnistWorker.js', import.meta.url), { type: 'module', name: 'neura-mnist' });
  const losses: [number, number][] = [];
  const accs: [number, number][] = [];
  const total = steps;
  let start = 0;
  const run = trainInWorker<MnistConfig, MnistResult>(worker, { kind, steps, opfs: OPFS_DIR, restore }, {
    onEvent(e) {
      if (e.kind === 'progress') status(e.message);
      else if (e.kind === 'message') {
        const p = e.data as PanelMessage;
        $(p.panel).innerHTML = p.html;
      } else if (e.kind === 'step') {
        start ||= performance.now();
        losses.push([e.step, e.loss ?? Number.NaN]);
      } else if (e.kind === 'metrics') {
        accs.push([e.step, e.metrics[BATCH_ACCURACY]]);
        if (e.step % 10 === 0 || e.step === total) {
          drawChart(losses, accs, total, 'batch accuracy');
          const rate = (accs.length * 1000) / (performance.now() - start);
          status(`step ${e.step}/${total}: loss ${losses[losses.length - 1][1].toFixed(3)} — ${rate.toFixed(1)} steps/s (training in a worker)`);
        }
      }
    },
  });
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
    location.search = `?model=${select.value === 'gpt' ? 'mlp' : select.value}&restore=1`;
  });
  document.body.dataset.model = kind;
  // the GPT page is its own bundle (web/gptPage.js, the whole compiler): a URL import, so this bundle stays small
  if (kind === 'gpt') await ((await import(new URL('gptPage.js', import.meta.url).href)) as typeof import('./gptPage.js')).runGpt(steps);
  else await runMnist(kind, steps, params.get('restore') === '1');
}

main().catch((e) => {
  status(`error: ${e instanceof Error ? e.message : String(e)}`);
  document.body.dataset.error = String(e);
});
