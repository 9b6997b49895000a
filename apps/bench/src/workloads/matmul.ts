// Square fp32 matmul throughput: C = A·B with A and B resident on the GPU (params), so the timing is the
// kernel, not uploads. Many steps per synchronisation; TFLOP/s from the median time per matmul.

import { Graph } from '@neura/ir';
import { compile, type NeuraDevice } from '@neura/runtime-webgpu';
import { summarize, type Timing } from '../timing.js';

/** Result of one matmul size. */
export interface MatmulResult extends Timing {
  n: number;
  tflops: number;
}

/** Times an n×n×n fp32 matmul (the mixed row times the step's f16-operand form: `benchMatmulShape` in kernels.ts). */
export async function benchMatmul(n: number, device: NeuraDevice, opts: { blocks: number; perBlock: number }): Promise<MatmulResult> {
  const g = new Graph();
  const a = g.param('a', [n, n], { kind: 'uniform', low: -1, high: 1, seed: 1 });
  const b = g.param('b', [n, n], { kind: 'uniform', low: -1, high: 1, seed: 2 });
  g.output('c', g.matmul(a, b));
  const session = await compile(g, device, { label: `matmul-${n}` });
  for (let i = 0; i < 3; i++) await session.step({});
  await session.sync();
  const samples: number[] = [];
  for (let blk = 0; blk < opts.blocks; blk++) {
    const t0 = performance.now();
    for (let i = 0; i < opts.perBlock; i++) await session.step({});
    await session.sync();
    samples.push((performance.now() - t0) / opts.perBlock);
  }
  session.dispose();
  const t = summarize(samples);
  return { n, ...t, tflops: (2 * n ** 3) / (t.medianMs * 1e-3) / 1e12 };
}
