// The demo's MNIST worker (bundled to web/dist/mnistWorker.js, started by the page as a module Worker): everything heavy
// runs here, off the page's main thread — fetching and decoding MNIST, the WebGPU device, the e-graph compile,
// training, evaluation, and the checkpoint in OPFS (saved after training; `restore` loads and evaluates it). It
// streams progress, steps and panels to the page through `@neura/nn/worker`; the page only draws.

import { countCorrect, mnistFromIdx, saveCheckpoint } from '@neura/nn';
import { opfsCheckpoints, startWorkerTrainer } from '@neura/nn/worker';
import { createDevice } from '@neura/runtime-webgpu';
import { adapterPanelHtml, adapterTitle } from './web/adapterPanel.js';
import { digitsPng } from './web/digits.js';
import { egraphPanelMessage } from './web/egraphPanelMessage.js';
import { type Gunzipped, gunzipResponse } from './web/gunzip.js';
import { BATCH_ACCURACY, type MnistConfig, type MnistResult, type PanelMessage } from './web/mnistMessages.js';
import { mnistModel } from './web/models.js';
import { profiledStepHtml } from './web/profiledStep.js';
import { restoreDemoCheckpoint } from './web/restoreDemoCheckpoint.js';

/** An MNIST IDX file, fetched gzipped (as MNIST is distributed: 11 MB in all instead of 55) and gunzipped here. */
async function fetchIdx(name: string): Promise<Gunzipped> {
  const url = `data/${name}.gz`; // relative to this worker script, next to the page (web/build.mjs writes them)
  const r = await fetch(url);
  if (!r.ok) throw new Error(`fetch ${url}: HTTP ${r.status}`);
  return gunzipResponse(r, url);
}

startWorkerTrainer<MnistConfig, MnistResult>(async (ctx) => {
  const { kind, restore, opfs } = ctx.config;
  const steps = restore ? 0 : ctx.config.steps;
  const store = await opfsCheckpoints(opfs); // OPFS from the worker: the page's main thread never copies the bytes
  const panel = (m: PanelMessage) => ctx.post(m, Object.values(m.images ?? {})); // the PNG bytes are transferred
  ctx.progress('device', 'acquiring the WebGPU device (in a worker)…');
  const device = await createDevice();
  panel({ panel: 'adapter', html: adapterPanelHtml(device) });
  ctx.progress('load', 'loading and decoding MNIST (in a worker)…');
  const t0 = performance.now();
  const files = await Promise.all(['train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'].map(fetchIdx));
  const [trImg, trLab, teImg, teLab] = files.map((f) => f.bytes);
  const data = { train: mnistFromIdx(trImg, trLab, 'train'), test: mnistFromIdx(teImg, teLab, 'test') };
  const mnistBytes = { transferred: files.reduce((s, f) => s + f.compressedBytes, 0), decoded: files.reduce((s, f) => s + f.bytes.length, 0) };
  ctx.progress('compile', `compiling the ${kind.toUpperCase()} step (in a worker)…`);
  const model = await mnistModel(kind, data, device);
  const compileMs = performance.now() - t0;
  panel(await egraphPanelMessage(model.built, model.train.graph, model.train.report));
  let step = 0;
  ctx.onCheckpointRequest(async () => ({ bytes: await saveCheckpoint(model.train, { step, extra: { model: kind } }), step }));
  const resume = restore ? await store.loadBytes(kind) : ctx.resume;
  if (resume) {
    ctx.progress('restore', `restoring the ${kind.toUpperCase()} checkpoint…`);
    step = await restoreDemoCheckpoint(model.train, resume, kind);
  }
  const start = performance.now();
  for (let s = 0; s < steps && !ctx.signal.aborted; s++) {
    if (s === 3) panel({ panel: 'timeline', html: await profiledStepHtml(model.train.session, model.next(s, steps).feeds) }); // a warm step (it trains too)
    const { feeds, labels } = model.next(s, steps);
    const r = await model.train.session.step(feeds, { read: ['loss', 'logits'] });
    step++;
    ctx.step({ step, totalSteps: steps, epoch: 0, loss: r.outputs.loss.data[0] });
    ctx.metrics(step, { [BATCH_ACCURACY]: countCorrect(r.outputs.logits.data, labels, 10) / labels.length });
  }
  const trainS = (performance.now() - start) / 1000;
  let saved: string | undefined;
  if (steps > 0) {
    ctx.progress('save', 'saving the checkpoint to OPFS…');
    await store.save(kind, await saveCheckpoint(model.train, { step, extra: { model: kind } }));
    saved = kind;
  }
  ctx.progress('evaluate', 'evaluating…');
  const ev = await model.evaluate();
  return {
    accuracy: ev.accuracy as number,
    step,
    restored: resume !== undefined,
    saved,
    compileMs,
    trainS,
    mnistBytes,
    dispatchesPerStep: model.train.stats.dispatchesPerStep,
    device: adapterTitle(device.adapterInfo),
    digits: await digitsPng(data.test.images, ev.logits ?? [], data.test.labels),
  };
});
