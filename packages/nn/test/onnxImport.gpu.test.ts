// An imported ONNX CNN (tooling/fixtures/onnx/cnn.onnx, a torch export) on a real WebGPU adapter: compiled for
// inference it must match onnxruntime-node (an independent runtime); one fine-tuning step must change the
// imported initializers exactly as the interpreter's SGD step on the same graph does.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { grad } from '@neura/autograd';
import { interpret, type TensorValue, tensor } from '@neura/ir';
import { compileInference, compileTraining } from '@neura/nn';
import { importOnnx } from '@neura/nn/onnx';
import { sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const bytes = new Uint8Array(readFileSync(fileURLToPath(new URL('../../../tooling/fixtures/onnx/cnn.onnx', import.meta.url))));
const x = Float32Array.from({ length: 2 * 3 * 8 * 8 }, (_, i) => Math.sin(i * 0.37) * 1.5);

describe('an imported ONNX CNN on the GPU', () => {
  it('runs inference like onnxruntime', async () => {
    const imp = importOnnx(bytes);
    const infer = await compileInference(imp.graph, { outputs: { y: imp.outputs.y }, device, initialState: imp.initialState });
    const got = (await infer.run({ x })).y;
    const ref = await (await ort.InferenceSession.create(bytes)).run({ x: new ort.Tensor('float32', x, [2, 3, 8, 8]) });
    expect(got.shape).toEqual([2, 3]);
    expect(got.data).toBeAllclose(ref.y.data as Float32Array, { rtol: 1e-4, atol: 1e-4 });
    infer.dispose();
  });

  it('fine-tunes: one SGD step moves the imported initializers as the interpreter does', async () => {
    const build = () => {
      const imp = importOnnx(bytes);
      const labels = imp.graph.input('labels', [2], 'i32');
      return { imp, loss: imp.graph.crossEntropy(imp.outputs.y, labels) };
    };
    const gpu = build();
    const train = await compileTraining(gpu.imp.graph, { loss: gpu.loss, optimizer: sgd({ lr: 0.5 }), device, initialState: gpu.imp.initialState });
    const labels = Int32Array.from([2, 0]);
    await train.step({ x, labels });
    const after = await train.readParams();

    const ref = build();
    const params = ref.imp.graph.leaves('param');
    sgd({ lr: 0.5 }).apply(ref.imp.graph, params, grad(ref.imp.graph, ref.loss, params));
    const want = interpret(ref.imp.graph, { x: tensor([2, 3, 8, 8], x), labels: tensor([2], labels, 'i32') }, ref.imp.initialState, 'f64').updates;
    expect(Object.keys(after).sort()).toEqual([...ref.imp.params].sort());
    let moved = 0;
    for (const name of ref.imp.params) {
      const before = ref.imp.initialState[name] as TensorValue;
      expect(after[name].data, name).toBeAllclose(want[name].data, { rtol: 1e-3, atol: 1e-5 });
      moved += Array.from(after[name].data).some((v, i) => Math.abs(v - before.data[i]) > 1e-6) ? 1 : 0;
    }
    expect(moved).toBe(ref.imp.params.length); // every imported weight and bias took a step
    train.dispose();
  });
});
