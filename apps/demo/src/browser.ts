// The browser demo: the same packages as `pnpm mnist`, on `navigator.gpu`. Pick a model (MLP or CNN on MNIST, a
// char-level GPT on text from the page's server), watch the loss and accuracy chart while it trains, see what the
// e-graph optimizer did to the step (kernels before/after, the fused kernels and their rules), a profiled step as a
// per-kernel GPU timeline, and the adapter's limits. Built by `pnpm web:build` (esbuild), served by web/serve.mjs.
// URL: ?model=mlp|cnn|gpt&steps=N. When done, body[data-accuracy] (or data-error) is set for web/check.mjs.

import { argmaxRow, countCorrect, mnistFromIdx } from '@neura/nn';
import { createDevice, type NeuraDevice, ProfilerError } from '@neura/runtime-webgpu';
import { adapterPanelHtml } from './web/adapterPanel.js';
import { egraphPanelHtml } from './web/egraphPanel.js';
import { esc } from './web/html.js';
import { lineChartSvg, type Series } from './web/lineChart.js';
import { type DemoModel, gptModel, MODELS, type ModelKind, mnistModel } from './web/models.js';
import { timelinePanelHtml } from './web/timelinePanel.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = (s: string) => {
  $('status').textContent = s;
};

async function fetchBytes(name: string): Promise<Uint8Array> {
  const r = await fetch(`data/${name}`);
  if (!r.ok) throw new Error(`fetch data/${name}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

async function loadMnist() {
  const [trImg, trLab, teImg, teLab] = await Promise.all(
    ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'].map(fetchBytes),
  );
  return { train: mnistFromIdx(trImg, trLab, 'train'), test: mnistFromIdx(teImg, teLab, 'test') };
}

function drawDigits(canvas: HTMLCanvasElement, images: Float32Array, logits: ArrayLike<number>, labels: Int32Array): void {
  const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
  ctx.font = '13px system-ui';
  const cell = 44;
  for (let k = 0; k < 32; k++) {
    const img = ctx.createImageData(28, 28);
    for (let p = 0; p < 784; p++) {
      const v = Math.max(0, Math.min(255, (images[k * 784 + p] * 0.3081 + 0.1307) * 255));
      img.data.set([v, v, v, 255], p * 4);
    }
    const x = (k % 8) * cell;
    const y = Math.floor(k / 8) * (cell + 16);
    ctx.putImageData(img, x, y);
    const guess = argmaxRow(logits, k, 10);
    ctx.fillStyle = guess === labels[k] ? '#2a9d8f' : '#e76f51';
    ctx.fillText(`${guess}${guess === labels[k] ? '' : ` (${labels[k]})`}`, x + 4, y + 42);
  }
}

/** Exponential moving average of a series of [x, y] points. */
function smooth(points: readonly [number, number][], alpha: number): [number, number][] {
  let m = Number.NaN;
  return points.map(([x, y]) => [x, (m = Number.isNaN(m) ? y : m + alpha * (y - m))]);
}

function drawChart(losses: [number, number][], accs: [number, number][], total: number, accName: string): void {
  const series: Series[] = [
    { name: 'loss (per step)', color: '#e76f51', axis: 'left', points: losses, faint: true },
    { name: 'loss', color: '#e76f51', axis: 'left', points: smooth(losses, 0.1) },
    { name: accName, color: '#2a9d8f', axis: 'right', points: smooth(accs, 0.1) },
  ];
  $('chart').innerHTML = lineChartSvg(series, { width: 640, height: 300, xTitle: 'training step', leftTitle: 'cross-entropy loss', rightTitle: accName, xMax: total });
}

async function profileStep(model: DemoModel, step: number, total: number): Promise<void> {
  try {
    const profile = await model.train.session.profile(model.next(step, total).feeds);
    $('timeline').innerHTML = timelinePanelHtml(profile.timings, profile.summary());
  } catch (e) {
    if (!(e instanceof ProfilerError)) throw e;
    $('timeline').innerHTML = `<p class="muted">No per-kernel timeline: ${esc(e.message)}. In Chromium, start it with --enable-dawn-features=allow_unsafe_apis (or --enable-webgpu-developer-features) to get timestamps.</p>`;
  }
}

async function main(): Promise<void> {
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

  status('acquiring the WebGPU device…');
  const device: NeuraDevice = await createDevice();
  $('adapter').innerHTML = adapterPanelHtml(device);
  status(kind === 'gpt' ? 'loading the text…' : 'loading MNIST…');
  let model: DemoModel;
  const t0 = performance.now();
  if (kind === 'gpt') {
    const r = await fetch('corpus.txt');
    if (!r.ok) throw new Error(`fetch corpus.txt: HTTP ${r.status}`);
    const text = await r.text();
    status(`compiling the GPT step (${text.length.toLocaleString()} characters of text)…`);
    model = await gptModel(text, device);
  } else {
    const data = await loadMnist();
    status(`compiling the ${kind.toUpperCase()} step…`);
    model = await mnistModel(kind, data, device);
  }
  const compileMs = performance.now() - t0;
  $('egraph').innerHTML = egraphPanelHtml(model.built, model.train.graph, model.train.report);

  const losses: [number, number][] = [];
  const accs: [number, number][] = [];
  const accName = kind === 'gpt' ? 'next-char accuracy' : 'batch accuracy';
  const start = performance.now();
  for (let step = 0; step < steps; step++) {
    if (step === 3) await profileStep(model, step, steps); // a warm step, profiled (it trains too)
    const { feeds, labels } = model.next(step, steps);
    const r = await model.train.session.step(feeds, { read: ['loss', 'logits'] });
    losses.push([step + 1, r.outputs.loss.data[0]]);
    accs.push([step + 1, countCorrect(r.outputs.logits.data, labels, model.classes) / labels.length]);
    if (step % 10 === 9 || step === steps - 1) {
      drawChart(losses, accs, steps, accName);
      const rate = ((step + 1) * 1000) / (performance.now() - start);
      status(`step ${step + 1}/${steps}: loss ${losses[step][1].toFixed(3)} — ${rate.toFixed(1)} steps/s, ${model.train.stats.dispatchesPerStep} dispatches/step`);
      await new Promise((r) => setTimeout(r, 0)); // let the page paint
    }
  }
  const trainS = (performance.now() - start) / 1000;
  status('evaluating…');
  const ev = await model.evaluate();
  if (ev.sample !== undefined) $('side').innerHTML = `<h2>sample after ${steps} steps</h2><pre class="sample">${esc(ev.sample)}</pre>`;
  if (ev.logits && ev.images && ev.labels) {
    $('side').innerHTML = '<h2>test digits: the model’s guesses</h2><canvas id="digits" width="352" height="240"></canvas>';
    drawDigits($('digits'), ev.images, ev.logits, ev.labels);
  }
  const acc = ev.accuracy ?? accs.slice(-20).reduce((s, a) => s + a[1], 0) / Math.min(20, accs.length);
  const what = ev.accuracy !== undefined ? 'test accuracy' : 'next-char accuracy (last 20 steps)';
  status(`done: ${steps} steps in ${trainS.toFixed(1)} s (compile ${(compileMs / 1000).toFixed(1)} s), ${what} ${(acc * 100).toFixed(2)}% on ${device.name}`);
  document.body.dataset.model = kind;
  document.body.dataset.finalLoss = String(losses[losses.length - 1][1]);
  document.body.dataset.accuracy = String(acc);
}

main().catch((e) => {
  status(`error: ${e instanceof Error ? e.message : String(e)}`);
  document.body.dataset.error = String(e);
});
