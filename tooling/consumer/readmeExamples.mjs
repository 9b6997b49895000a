// The README examples of the seven packages, run from the installed tarballs in Node ESM (software adapter on a
// machine without a GPU). Each one checks what its README says it prints.
import assert from 'node:assert/strict';
import { grad } from '@neura/autograd';
import { optimize } from '@neura/egraph';
import { Graph, interpret, tensor } from '@neura/ir';
import { compileTraining, mlp } from '@neura/nn';
import { loadMnist } from '@neura/nn/node';
import { adam } from '@neura/optim';
import { compile, createDevice } from '@neura/runtime-webgpu';
import { COMPAT_CAPS, generateKernel, kernelFor, registerKernel, unregisterKernel } from '@neura/wgsl-kernels';

const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-5, `${a} vs ${b}`);

{ // @neura/ir
  const g = new Graph();
  const x = g.input('x', [2, 3]);
  const w = g.param('w', [3, 4]);
  g.output('y', g.relu(g.matmul(x, w)));
  const { outputs } = interpret(g, { x: tensor([2, 3], [1, 2, 3, 4, 5, 6]) }, { w: tensor([3, 4], new Array(12).fill(0.1)) });
  assert.deepEqual(outputs.y.shape, [2, 4]);
  close(outputs.y.data[0], 0.6);
  close(outputs.y.data[7], 1.5);
}
{ // @neura/autograd
  const g = new Graph();
  const x = g.param('x', [3]);
  const [dx] = grad(g, g.sum(g.square(x)), [x]);
  g.output('dx', dx);
  assert.deepEqual([...interpret(g, {}, { x: tensor([3], [1, 2, 3]) }).outputs.dx.data], [2, 4, 6]);
}
{ // @neura/egraph
  const g = new Graph();
  const x = g.input('x', [32, 784]);
  g.output('h', g.relu(g.add(g.matmul(x, g.param('w', [784, 128])), g.param('b', [128]))));
  const { graph, report } = optimize(g);
  assert.ok(report.kernels.some((k) => k.op === 'fusedMatmul'), report.format());
  assert.ok(graph.live().length < g.live().length);
}
{ // @neura/wgsl-kernels
  const g = new Graph();
  const y = g.relu(g.input('x', [1024]));
  const plan = generateKernel({ node: y, inputs: [{ shape: [1024], dtype: 'f32' }] }, COMPAT_CAPS);
  assert.match(plan.dispatches[0].code, /@compute/);
  const mine = () => plan;
  registerKernel('relu', mine);
  assert.equal(kernelFor('relu'), mine);
  assert.equal(unregisterKernel('relu'), true);
}
const device = await createDevice();
try {
  { // @neura/runtime-webgpu
    const g = new Graph();
    g.output('y', g.relu(g.input('x', [4])));
    const session = await compile(g, device);
    const { outputs } = await session.step({ x: new Float32Array([-1, 2, -3, 4]) }, { read: ['y'] });
    assert.deepEqual([...outputs.y.data], [0, 2, 0, 4]);
  }
  { // @neura/nn and the root README: a training step on random digits
    const g = new Graph();
    const x = g.input('x', [32, 784]);
    const labels = g.input('labels', [32], 'i32');
    const loss = g.crossEntropy(mlp([784, 128, 10]).forward(g, x), labels);
    const train = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-3 }), device });
    const images = Float32Array.from({ length: 32 * 784 }, (_, i) => Math.sin(i) * 0.5);
    const digits = Int32Array.from({ length: 32 }, (_, i) => i % 10);
    const first = await train.step({ x: images, labels: digits }, { readLoss: true });
    let last = first;
    for (let i = 0; i < 20; i++) last = await train.step({ x: images, labels: digits }, { readLoss: true });
    assert.ok(Number.isFinite(first) && last < first, `loss ${first} -> ${last}`);
    console.log(`pack-check: README training loop on ${device.name}: loss ${first.toFixed(3)} -> ${last.toFixed(3)} in 21 steps`);
  }
} finally {
  device.destroy();
}
assert.equal(typeof loadMnist, 'function');
console.log('pack-check: the README examples of all seven packages run from the tarballs (Node ESM)');
