// The CNN training-step workloads (the same models, shapes and optimizer as python/reference.py's cnn_step):
// LeNet-5 at batch 64 and the small ResNet (BatchNorm, 3 stages 16/32/64) at batch 128 on 28×28 MNIST-sized
// inputs, Adam, the whole step compiled once and replayed; timed like the MLP and GPT workloads.

import { Graph } from '@neura/ir';
import { compileTraining, LeNet5, type Module, SmallResNet } from '@neura/nn';
import { adam } from '@neura/optim';
import type { NeuraDevice } from '@neura/runtime-webgpu';
import { benchCompiledStep, feedBatches, type StepFigures, type StepIters, type SyncedTiming } from './stepFigures.js';

/** One CNN workload. */
export interface CnnWorkload {
  name: string;
  model: 'lenet' | 'resnet';
  batch: number;
}

/** The CNN workloads of issue 12. */
export const CNN_WORKLOADS: CnnWorkload[] = [
  { name: 'cnn-lenet5-b64-adam', model: 'lenet', batch: 64 },
  { name: 'cnn-resnet8-b128-adam', model: 'resnet', batch: 128 },
];

/** Builds, compiles and times one CNN training step. */
export async function benchCnn(w: CnnWorkload, device: NeuraDevice, iters: StepIters): Promise<StepFigures & { synced: SyncedTiming; compileMs: number }> {
  const model: Module = w.model === 'lenet' ? new LeNet5() : new SmallResNet();
  const g = new Graph();
  const loss = g.crossEntropy(model.forward(g, g.input('x', [w.batch, 1, 28, 28])), g.input('labels', [w.batch], 'i32'));
  const t0 = performance.now();
  const train = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-3 }), device });
  const batches = feedBatches(4, (b) => ({
    x: Float32Array.from({ length: w.batch * 784 }, (_, i) => Math.sin(i * 0.37 + b)),
    labels: Int32Array.from({ length: w.batch }, (_, i) => (i * 7 + b) % 10),
  }));
  return benchCompiledStep(train, batches, t0, iters);
}
