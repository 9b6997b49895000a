// The demo's char-level GPT worker (bundled to web/dist/gptWorker.js, started by the page as a module Worker): the text,
// the WebGPU device, the e-graph compile, training, samples while it trains, the checkpoint in OPFS (saved after
// training; `restore` loads it) and, after the run, text generation on request (`ctx.onRequest`, streamed a
// character at a time). The page only draws; it asks for text with `requestWorker`.

import { countCorrect, saveCheckpoint } from '@neura/nn';
import { opfsCheckpoints, startWorkerTrainer } from '@neura/nn/worker';
import { createDevice } from '@neura/runtime-webgpu';
import { adapterPanelHtml, adapterTitle } from './web/adapterPanel.js';
import { egraphPanelMessage } from './web/egraphPanelMessage.js';
import { type GenerateRequest, type GptConfig, type GptResult, NEXT_CHAR_ACCURACY } from './web/gptMessages.js';
import type { PanelMessage } from './web/mnistMessages.js';
import { gptModel } from './web/models.js';
import { profiledStepHtml } from './web/profiledStep.js';
import { restoreDemoCheckpoint } from './web/restoreDemoCheckpoint.js';

/** The OPFS checkpoint name of the GPT (its `extra.model` too). */
const NAME = 'gpt';

startWorkerTrainer<GptConfig, GptResult>(async (ctx) => {
  const { restore, opfs, sampleEvery } = ctx.config;
  const steps = restore ? 0 : ctx.config.steps;
  const store = await opfsCheckpoints(opfs);
  const panel = (m: PanelMessage) => ctx.post(m, Object.values(m.images ?? {})); // the PNG bytes are transferred
  ctx.progress('device', 'acquiring the WebGPU device (in a worker)…');
  const device = await createDevice();
  panel({ panel: 'adapter', html: adapterPanelHtml(device) });
  ctx.progress('load', 'loading the text (in a worker)…');
  const t0 = performance.now();
  const url = 'corpus.txt'; // relative to this worker script, next to the page (web/build.mjs writes it)
  const r = await fetch(url);
  if (!r.ok) throw new Error(`fetch ${url}: HTTP ${r.status}`);
  const text = await r.text();
  ctx.progress('compile', `compiling the GPT step (${text.length.toLocaleString('en')} characters of text, in a worker)…`);
  const model = await gptModel(text, device);
  const compileMs = performance.now() - t0;
  panel(await egraphPanelMessage(model.built, model.train.graph, model.train.report));
  let step = 0;
  ctx.onCheckpointRequest(async () => ({ bytes: await saveCheckpoint(model.train, { step, extra: { model: NAME } }), step }));
  // generation with the weights as they are when asked: during training, after it, or after a restore
  ctx.onRequest<GenerateRequest, string>((req, partial) => model.generate(req, (c) => partial(c)));
  const resume = restore ? await store.loadBytes(NAME) : ctx.resume;
  if (resume) {
    ctx.progress('restore', 'restoring the GPT checkpoint…');
    step = await restoreDemoCheckpoint(model.train, resume, NAME);
  }
  const start = performance.now();
  for (let s = 0; s < steps && !ctx.signal.aborted; s++) {
    if (s === 3) panel({ panel: 'timeline', html: await profiledStepHtml(model.train.session, model.next(s, steps).feeds) }); // a warm step (it trains too)
    const { feeds, labels } = model.next(s, steps);
    const out = await model.train.session.step(feeds, { read: ['loss', 'logits'] });
    step++;
    ctx.step({ step, totalSteps: steps, epoch: 0, loss: out.outputs.loss.data[0] });
    ctx.metrics(step, { [NEXT_CHAR_ACCURACY]: countCorrect(out.outputs.logits.data, labels, model.classes) / labels.length });
    if (sampleEvery > 0 && step % sampleEvery === 0 && step < steps) ctx.sample(step, await model.generate({ prompt: model.prompt, maxTokens: 48 }));
  }
  const trainS = (performance.now() - start) / 1000;
  let saved: string | undefined;
  if (steps > 0) {
    ctx.progress('save', 'saving the checkpoint to OPFS…');
    await store.save(NAME, await saveCheckpoint(model.train, { step, extra: { model: NAME } }));
    saved = NAME;
  }
  return {
    step,
    restored: resume !== undefined,
    saved,
    compileMs,
    trainS,
    corpusChars: text.length,
    vocab: model.chars.length,
    dispatchesPerStep: model.train.stats.dispatchesPerStep,
    device: adapterTitle(device.adapterInfo),
    prompt: model.prompt,
  };
});
