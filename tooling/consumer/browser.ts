// A browser app's entry: bundled by esbuild with --platform=browser from the installed tarballs. It must bundle
// without flags (no `node:` builtin, no `webgpu` package reachable from @neura/nn's main entry).
import { Graph } from '@neura/ir';
import { compileTraining, mlp } from '@neura/nn';
import { adam } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';

export async function trainOnce(images: Float32Array, digits: Int32Array): Promise<number | undefined> {
  const g = new Graph();
  const x = g.input('x', [32, 784]);
  const labels = g.input('labels', [32], 'i32');
  const loss = g.crossEntropy(mlp([784, 128, 10]).forward(g, x), labels);
  const train = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-3 }), device: await createDevice() });
  return train.step({ x: images, labels: digits }, { readLoss: true });
}
