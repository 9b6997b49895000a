// The README's "Using it" MLP snippet as a browser app's entry, for the bundle-size budget (tooling/size/size.mjs):
// what a page that trains this MLP downloads before its first step. Keep it in step with README.md.
import { Graph } from '@neura/ir';
import { compileTraining, mlp } from '@neura/nn';
import { adam } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';

/** Compiles the README's MLP and runs one step on the given batch. */
export async function readmeMlp(images: Float32Array, digits: Int32Array): Promise<void> {
  const g = new Graph();
  const x = g.input('x', [32, 784]);
  const labels = g.input('labels', [32], 'i32');
  const loss = g.crossEntropy(mlp([784, 128, 10]).forward(g, x), labels);
  const train = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-3 }), device: await createDevice() });
  await train.step({ x: images, labels: digits });
}
