// The char-level GPT of the browser demo, trained on the page's main thread as before (the MNIST models train in a
// worker: src/mnistWorker.ts). Loaded with a dynamic import, so the MNIST page never loads the compiler on the page.

import { countCorrect } from '@neura/nn';
import { createDevice, ProfilerError } from '@neura/runtime-webgpu';
import { adapterPanelHtml, adapterTitle } from './web/adapterPanel.js';
import { egraphPanelHtml } from './web/egraphPanel.js';
import { esc } from './web/html.js';
import { type DemoModel, gptModel } from './web/models.js';
import { $, drawChart, status } from './web/page.js';
import { timelinePanelHtml } from './web/timelinePanel.js';

async function profileStep(model: DemoModel, step: number, total: number): Promise<void> {
  try {
    const profile = await model.train.session.profile(model.next(step, total).feeds);
    $('timeline').innerHTML = timelinePanelHtml(profile.timings, profile.summary());
  } catch (e) {
    if (!(e instanceof ProfilerError)) throw e;
    $('timeline').innerHTML = `<p class="muted">No per-kernel timeline: ${esc(e.message)}. In Chromium, start it with --enable-dawn-features=allow_unsafe_apis (or --enable-webgpu-developer-features) to get timestamps.</p>`;
  }
}

/** Trains the GPT for `steps` steps on the page, drawing the chart; sets body[data-accuracy] at the end. */
export async function runGpt(steps: number): Promise<void> {
  status('acquiring the WebGPU device…');
  const device = await createDevice();
  $('adapter').innerHTML = adapterPanelHtml(device);
  status('loading the text…');
  const t0 = performance.now();
  const r = await fetch('corpus.txt');
  if (!r.ok) throw new Error(`fetch corpus.txt: HTTP ${r.status}`);
  const text = await r.text();
  status(`compiling the GPT step (${text.length.toLocaleString()} characters of text)…`);
  const model = await gptModel(text, device);
  const compileMs = performance.now() - t0;
  $('egraph').innerHTML = egraphPanelHtml(model.built, model.train.graph, model.train.report);
  const losses: [number, number][] = [];
  const accs: [number, number][] = [];
  const start = performance.now();
  for (let step = 0; step < steps; step++) {
    if (step === 3) await profileStep(model, step, steps); // a warm step, profiled (it trains too)
    const { feeds, labels } = model.next(step, steps);
    const out = await model.train.session.step(feeds, { read: ['loss', 'logits'] });
    losses.push([step + 1, out.outputs.loss.data[0]]);
    accs.push([step + 1, countCorrect(out.outputs.logits.data, labels, model.classes) / labels.length]);
    if (step % 10 === 9 || step === steps - 1) {
      drawChart(losses, accs, steps, 'next-char accuracy');
      const rate = ((step + 1) * 1000) / (performance.now() - start);
      status(`step ${step + 1}/${steps}: loss ${losses[step][1].toFixed(3)} — ${rate.toFixed(1)} steps/s, ${model.train.stats.dispatchesPerStep} dispatches/step`);
      await new Promise((res) => setTimeout(res, 0)); // let the page paint
    }
  }
  const trainS = (performance.now() - start) / 1000;
  status('evaluating…');
  const ev = await model.evaluate();
  $('side').innerHTML = `<h2>sample after ${steps} steps</h2><pre class="sample">${esc(ev.sample ?? '')}</pre>`;
  const acc = accs.slice(-20).reduce((s, a) => s + a[1], 0) / Math.min(20, accs.length);
  status(`done: ${steps} steps in ${trainS.toFixed(1)} s (compile ${(compileMs / 1000).toFixed(1)} s), next-char accuracy (last 20 steps) ${(acc * 100).toFixed(2)}% on ${adapterTitle(device.adapterInfo)}`);
  document.body.dataset.finalLoss = String(losses[losses.length - 1][1]);
  document.body.dataset.accuracy = String(acc);
}
