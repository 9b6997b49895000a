// The browser demo: the same packages as `pnpm mnist`, on `navigator.gpu`. Fetches the MNIST IDX files
// from the page's server, trains the MLP live, draws the loss curve and a grid of test digits with the
// model's guesses, then reports test accuracy. Built by `pnpm web` (esbuild) and served by web/serve.mjs.

import { Graph } from '@neura/ir';
import { compileInference, compileTraining, cosineLr, countCorrect, mlp, mnistFromIdx, argmaxRow, batches } from '@neura/nn';
import { adam } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = (s: string) => {
  $('status').textContent = s;
};

async function fetchBytes(name: string): Promise<Uint8Array> {
  const r = await fetch(`data/${name}`);
  if (!r.ok) throw new Error(`fetch data/${name}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

function drawLoss(canvas: HTMLCanvasElement, losses: number[]): void {
  const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const max = Math.max(...losses, 1e-6);
  ctx.strokeStyle = '#2a9d8f';
  ctx.beginPath();
  losses.forEach((l, i) => {
    const x = (i / Math.max(1, losses.length - 1)) * canvas.width;
    const y = canvas.height - (l / max) * canvas.height;
    i ? ctx.lineTo(x, y) : ctx.moveTo(x, y);
  });
  ctx.stroke();
}

function drawDigits(canvas: HTMLCanvasElement, images: Float32Array, logits: ArrayLike<number>, labels: Int32Array): void {
  const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
  const cell = 40;
  for (let k = 0; k < 32; k++) {
    const img = ctx.createImageData(28, 28);
    for (let p = 0; p < 784; p++) {
      const v = Math.max(0, Math.min(255, (images[k * 784 + p] * 0.3081 + 0.1307) * 255));
      img.data.set([v, v, v, 255], p * 4);
    }
    const x = (k % 8) * cell;
    const y = Math.floor(k / 8) * (cell + 14);
    ctx.putImageData(img, x, y);
    const guess = argmaxRow(logits, k, 10);
    ctx.fillStyle = guess === labels[k] ? '#2a9d8f' : '#e76f51';
    ctx.fillText(String(guess), x + 10, y + 40);
  }
}

async function main(): Promise<void> {
  const steps = Number(new URLSearchParams(location.search).get('steps') ?? 600);
  status('loading MNIST…');
  const [trImg, trLab, teImg, teLab] = await Promise.all(
    ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'].map(fetchBytes),
  );
  const train = mnistFromIdx(trImg, trLab, 'train');
  const test = mnistFromIdx(teImg, teLab, 'test');
  const device = await createDevice();
  status(`adapter ${device.name}; compiling…`);

  const model = mlp([784, 128, 10]);
  const batch = 32;
  const g = new Graph();
  const loss = g.crossEntropy(model.forward(g, g.input('x', [batch, 784])), g.input('labels', [batch], 'i32'));
  const session = await compileTraining(g, { loss, optimizer: adam({ lr: g.input('lr', []) }), device });
  const lr = cosineLr(3e-3);
  const losses: number[] = [];
  const t0 = performance.now();
  let step = 0;
  const lrValue = new Float32Array(1);
  for (const b of batches(train, 784, { batchSize: batch, shuffleSeed: 1 })) {
    if (step >= steps) break;
    lrValue[0] = lr(step, steps);
    step++;
    const l = await session.step({ x: b.x, labels: b.labels, lr: lrValue }, { readLoss: step % 20 === 0 });
    if (l !== undefined) {
      losses.push(l);
      drawLoss($('loss'), losses);
      status(`step ${step}/${steps} loss ${l.toFixed(4)} — ${((step * 1000) / (performance.now() - t0)).toFixed(0)} steps/s, ${session.stats.dispatchesPerStep} dispatches/step`);
    }
  }

  const evalBatch = 1000;
  const ge = new Graph();
  const logits = model.forward(ge, ge.input('x', [evalBatch, 784]));
  const infer = await compileInference(ge, { outputs: { logits }, device, initialState: await session.readParams() });
  let correct = 0;
  for (let s = 0; s + evalBatch <= test.count; s += evalBatch) {
    const out = await infer.run({ x: test.images.subarray(s * 784, (s + evalBatch) * 784) });
    correct += countCorrect(out.logits.data, test.labels.subarray(s, s + evalBatch), 10);
    if (s === 0) drawDigits($('digits'), test.images, out.logits.data, test.labels);
  }
  const accuracy = correct / test.count;
  status(`done: ${step} steps, test accuracy ${(accuracy * 100).toFixed(2)}% on ${device.name}`);
  document.body.dataset.accuracy = String(accuracy);
}

main().catch((e) => {
  status(`error: ${e instanceof Error ? e.message : String(e)}`);
  document.body.dataset.error = String(e);
});
