// What a TypeScript user writes: type-checked against the installed tarballs under `nodenext` and `bundler`
// resolution (tsconfig.nodenext.json: DOM lib only, skipLibCheck off; tsconfig.bundler.json: plus @webgpu/types, as
// TypeScript 5 users set it up). Not run.
import { grad } from '@neura/autograd';
import { type OptimizeReport, optimize } from '@neura/egraph';
import { Graph, type TensorValue } from '@neura/ir';
import { compileTraining, mlp, type TrainingSession } from '@neura/nn';
import { loadMnist } from '@neura/nn/node';
import { adam } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { type KernelGenerator, registerKernel } from '@neura/wgsl-kernels';

export async function build(): Promise<{ device: NeuraDevice; train: TrainingSession; report: OptimizeReport }> {
  const g = new Graph();
  const x = g.input('x', [32, 784]);
  const labels = g.input('labels', [32], 'i32');
  const loss = g.crossEntropy(mlp([784, 128, 10]).forward(g, x), labels);
  const device = await createDevice();
  // with the WebGPU types visible (TypeScript 6's DOM lib, or @webgpu/types), device.gpu is a GPUDevice, not `any`:
  const gpu: GPUDevice = device.gpu;
  // @ts-expect-error -- a GPUDevice is not a number (this line would not error if gpu were `any`)
  const notANumber: number = gpu;
  void notANumber;
  const train = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-3 }), device });
  const h = new Graph();
  const p = h.param('p', [3]);
  grad(h, h.sum(h.square(p)), [p]);
  const mine: KernelGenerator = () => ({ dispatches: [], scratch: [] });
  registerKernel('relu', mine);
  return { device, train, report: optimize(g).report };
}

export const mnist: Promise<{ train: { images: Float32Array } }> = loadMnist('/nowhere');
export const v: TensorValue | undefined = undefined;
