// TensorFlow.js reference on the same Dawn adapter as neura (its WebGPU backend): the MLP training-step
// workloads with the same shapes and optimizers, timed the same way (each step awaited, GPU synchronised by
// reading the loss back — TF.js has no other public sync). Prints one JSON document (or --out FILE).

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
// order matters: the adapter must exist on navigator.gpu before TF.js's WebGPU backend registers
import './tfjsNavigator.js';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-core/dist/register_all_gradients.js';
import '@tensorflow/tfjs-backend-webgpu';
import { timeAsync } from './timing.js';
import { MLP_WORKLOADS } from './workloads/mlp.js';

const { values: args } = parseArgs({ options: { out: { type: 'string' }, profile: { type: 'string', default: 'local' } } });
await tf.setBackend('webgpu');
await tf.ready();

const device = args.profile === 'device';
const results: Record<string, unknown> = {};
for (const w of MLP_WORKLOADS) {
  const params: any[] = [];
  for (let i = 0; i + 1 < w.sizes.length; i++) {
    const bound = 1 / Math.sqrt(w.sizes[i]);
    params.push(tf.variable(tf.randomUniform([w.sizes[i], w.sizes[i + 1]], -bound, bound)));
    params.push(tf.variable(tf.randomUniform([w.sizes[i + 1]], -bound, bound)));
  }
  const x = tf.randomNormal([w.batch, w.sizes[0]]);
  const classes = w.sizes[w.sizes.length - 1];
  const y = tf.oneHot(tf.tensor1d(Array.from({ length: w.batch }, (_, i) => (i * 7) % classes), 'int32'), classes);
  const opt = w.optimizer === 'sgd' ? tf.train.sgd(0.01) : tf.train.adam(1e-3);
  const lossFn = () =>
    tf.tidy(() => {
      let h: any = x;
      for (let i = 0; i < params.length; i += 2) {
        h = tf.add(tf.matMul(h, params[i]), params[i + 1]);
        if (i + 2 < params.length) h = tf.relu(h);
      }
      return tf.losses.softmaxCrossEntropy(y, h) as any;
    });
  const step = async () => {
    const loss = opt.minimize(lossFn, true, params) as any;
    await loss.data();
    loss.dispose();
  };
  const synced = await timeAsync(step, device ? 300 : 10, device ? 30 : 3);
  results[w.name] = { synced };
  console.error(`[tfjs] ${w.name}: ${synced.medianMs.toFixed(3)} ms`);
}
const doc = { framework: 'tfjs', version: tf.version_core, date: new Date().toISOString(), backend: tf.getBackend(), results };
if (args.out) writeFileSync(args.out, JSON.stringify(doc));
else console.log(JSON.stringify(doc));
process.exit(0);
