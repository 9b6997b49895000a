// Soak run (issue 9): a tiny MLP training step for 20,000 steps, then compile/dispose cycles, then
// createDevice/destroy cycles, printing resident memory (RSS) after each phase as one JSON line, so a leak shows
// as growth between the "after warm-up" and "after" figures. Not a test: RSS depends on the machine and the
// allocator; tests assert the GPU object counts instead (runtime-webgpu/test/soak.gpu.test.ts).
// Usage: pnpm --filter @neura/bench soak [--steps 20000] [--cycles 200] [--devices 50]

import { Graph } from '@neura/ir';
import { compileTraining, mlp } from '@neura/nn';
import { sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const [STEPS, CYCLES, DEVICES] = [arg('steps', 20_000), arg('cycles', 200), arg('devices', 50)];
const [B, F, C] = [8, 16, 4];
const mib = () => Math.round(process.memoryUsage().rss / 2 ** 20);
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void; // RSS after a full collection: what is still referenced
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
};

async function compileStep(device: NeuraDevice) {
  const g = new Graph();
  const x = g.input('x', [B, F]);
  const labels = g.input('labels', [B], 'i32');
  const loss = g.crossEntropy(mlp([F, 32, C]).forward(g, x), labels);
  return compileTraining(g, { loss, optimizer: sgd({ lr: 0.05 }), device });
}

const device = await createDevice();
const feeds = { x: Float32Array.from({ length: B * F }, (_, i) => Math.sin(i)), labels: Int32Array.from({ length: B }, (_, i) => i % C) };
const out: Record<string, number | string> = { adapter: device.name, steps: STEPS, cycles: CYCLES, devices: DEVICES };

const train = await compileStep(device);
for (let s = 0; s < 100; s++) await train.step(feeds);
await settle();
out.rssWarmMiB = mib();
let t0 = performance.now();
for (let s = 0; s < STEPS; s++) {
  const p = train.step(feeds, { readLoss: s % 1000 === 999 });
  if (s % 64 === 63) await p;
}
await train.session.sync();
out.msPerStep = Number(((performance.now() - t0) / STEPS).toFixed(3));
await settle();
out.rssAfterStepsMiB = mib();
await train.session.dispose();

t0 = performance.now();
for (let k = 0; k < CYCLES; k++) {
  const s = await compileStep(device);
  await s.step(feeds, { readLoss: true });
  await s.session.dispose();
}
out.msPerCompileCycle = Number(((performance.now() - t0) / Math.max(1, CYCLES)).toFixed(1));
await settle();
out.rssAfterCompileCyclesMiB = mib();
device.destroy();

for (let k = 0; k < 30; k++) (await createDevice()).destroy(); // measured: RSS grows over the first ~25 cycles (driver caches), then stays flat
await settle();
out.rssDevicesWarmMiB = mib();
for (let k = 0; k < DEVICES; k++) {
  (await createDevice()).destroy();
  // V8 does not see a device's native memory, so it is freed when V8 next collects: collect every 10 cycles as a
  // long-lived process would (measured: 60 cycles without a collection +83 MiB, with one every 10 cycles +1 MiB)
  if (k % 10 === 9) await settle();
}
await settle();
out.rssAfterDeviceCyclesMiB = mib();
console.log(JSON.stringify(out));
process.exit(0);
