// A browser app's entry: bundled by esbuild with --platform=browser from the installed tarballs. It must bundle
// without flags (no `node:` builtin, no `webgpu` package reachable from @neura/nn's main entry); browserRun.mjs then
// runs it in headless Chromium: the README's training loop on `navigator.gpu`.
import { Graph } from '@neura/ir';
import { compileTraining, mlp } from '@neura/nn';
import { adam } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';

/** Trains the README's MLP for `steps` steps on fixed random digits; returns the first and last loss and the adapter. */
export async function trainReadmeExample(steps: number): Promise<{ first: number; last: number; adapter: string }> {
  const g = new Graph();
  const x = g.input('x', [32, 784]);
  const labels = g.input('labels', [32], 'i32');
  const loss = g.crossEntropy(mlp([784, 128, 10]).forward(g, x), labels);
  const device = await createDevice();
  const train = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-3 }), device });
  const images = Float32Array.from({ length: 32 * 784 }, (_, i) => Math.sin(i) * 0.5);
  const digits = Int32Array.from({ length: 32 }, (_, i) => i % 10);
  const first = (await train.step({ x: images, labels: digits }, { readLoss: true })) as number;
  let last = first;
  for (let i = 1; i < steps; i++) last = (await train.step({ x: images, labels: digits }, { readLoss: true })) as number;
  device.destroy();
  return { first, last, adapter: device.name };
}
