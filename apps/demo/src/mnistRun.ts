// The two ends of an MNIST demo run shared by `pnpm mnist` (MLP) and `pnpm cnn` (LeNet/ResNet): test accuracy in
// whole evaluation batches, and the close (one `done` JSON line, sessions and device freed, exit 1 below
// --min-accuracy). The model, its input shape and what the `done` line reports stay with each demo.

import { countCorrect, type FitResult, type InferenceSession, type MnistSplit, type TrainingSession } from '@neura/nn';
import type { NeuraDevice } from '@neura/runtime-webgpu';

/** Accuracy of `infer` (input `x`, output `logits`) over the first `count` test images, in whole batches of `batch`. */
export async function evaluateMnist(infer: InferenceSession, test: MnistSplit, batch: number, count = test.count): Promise<{ accuracy: number; seen: number }> {
  let correct = 0;
  let seen = 0;
  for (let start = 0; start + batch <= count; start += batch) {
    const out = await infer.run({ x: test.images.subarray(start * 784, (start + batch) * 784) });
    correct += countCorrect(out.logits.data, test.labels.subarray(start, start + batch), 10);
    seen += batch;
  }
  return { accuracy: correct / seen, seen };
}

/** What a finished run owns and measured: freed and reported by `finishRun`. */
export interface FinishedRun {
  readonly train: TrainingSession;
  readonly infer: InferenceSession;
  readonly device: NeuraDevice;
  readonly fit: FitResult;
  readonly compileMs: number;
}

/**
 * Prints the `done` line (the demo's own fields first, then the step figures every demo reports), frees the
 * sessions and the device, and exits: 1 when the test accuracy is below `min`.
 */
export function finishRun(run: FinishedRun, done: { readonly testAccuracy: number } & Record<string, unknown>, min: number | undefined): never {
  const { train, infer, device, fit } = run;
  console.log(
    JSON.stringify({
      event: 'done',
      ...done,
      steps: fit.steps,
      msPerStep: Number(fit.msPerStep.toFixed(3)),
      dispatchesPerStep: train.stats.dispatchesPerStep,
      adapter: device.name,
      finalLoss: fit.losses.at(-1)?.loss,
      compileMs: Math.round(run.compileMs),
      bytesAllocated: train.stats.bytesAllocated,
    }),
  );
  train.dispose();
  infer.dispose();
  device.destroy();
  if (min !== undefined && done.testAccuracy < min) {
    console.error(`test accuracy ${done.testAccuracy} is below --min-accuracy ${min}`);
    process.exit(1);
  }
  process.exit(0);
}
