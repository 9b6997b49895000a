// The implicit-GEMM convolutions (forward, input gradient, weight gradient with and without split-K) and the direct
// loops they fall back to, against the reference interpreter (float32) on a real WebGPU device, at odd shapes:
// channels not multiples of 4 or of a tile, 1x1 / 3x3 / 5x5 / 7x7 kernels, strides 1 and 2, padding 0 to 3,
// dilation, groups, batch 1 and 3, non-square images, strided input gradients by phase; under the device's caps
// and under 64-invocation limits.
import { describe, expect, it } from 'vitest';
import { COMPAT_CAPS, type DeviceCaps, type KernelPlan, type KernelSpec, loadKernels } from '@neura/wgsl-kernels';
import { type Conv2dAttrs, Graph, interpret, mulberry32, numel, type Shape, tensor } from '@neura/ir';
import { runPlan, testCaps } from '../../../tooling/test/gpu.js';
import { convKernelOn, convPathOf } from '../src/conv.js';
import { CONV_TILES, type ConvSplitK, convTileFits, convTileName } from '../src/convGemm.js';
import type { ConvOp } from '../src/convIm2col.js';

await loadKernels(['conv2d']);

const SMALL64: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 64, maxComputeWorkgroupSizeX: 64, maxComputeWorkgroupSizeY: 64 };

interface ConvCase {
  what: string;
  x: Shape;
  w: Shape;
  a: Conv2dAttrs;
}
const attrs = (stride: number | [number, number], padding: number | [number, number], o: Partial<Conv2dAttrs> = {}): Conv2dAttrs => ({
  stride: typeof stride === 'number' ? [stride, stride] : stride,
  padding: typeof padding === 'number' ? [padding, padding] : padding,
  dilation: o.dilation ?? [1, 1],
  groups: o.groups ?? 1,
});
const CASES: ConvCase[] = [
  { what: '3x3 pad 1, 5 -> 10 channels, batch 3, 9x7', x: [3, 5, 9, 7], w: [10, 5, 3, 3], a: attrs(1, 1) },
  { what: '5x5 pad 2, 3 -> 9 channels, batch 1, 11x8', x: [1, 3, 11, 8], w: [9, 3, 5, 5], a: attrs(1, 2) },
  { what: '1x1 pad 0, 6 -> 11 channels, batch 3, 6x5 (the plain-matmul gather)', x: [3, 6, 6, 5], w: [11, 6, 1, 1], a: attrs(1, 0) },
  { what: '7x7 stride 2 pad 3, 3 -> 12 channels, batch 1, 15x13', x: [1, 3, 15, 13], w: [12, 3, 7, 7], a: attrs(2, 3) },
  { what: '1x1 stride 2, 12 -> 9 channels, batch 2, 9x10 (a downsample)', x: [2, 12, 9, 10], w: [9, 12, 1, 1], a: attrs(2, 0) },
  { what: '3x2 stride [2,1] pad [0,2] dilation [2,1], 2 groups of 4 -> 10', x: [3, 8, 7, 9], w: [20, 4, 3, 2], a: attrs([2, 1], [0, 2], { dilation: [2, 1], groups: 2 }) },
  { what: '3x3 stride 2 pad 1, 16 -> 33 channels, batch 3, 10x9', x: [3, 16, 10, 9], w: [33, 16, 3, 3], a: attrs(2, 1) },
  { what: '5x4 stride [3,2] pad [2,1] dilation [2,3], 5 -> 8 channels, batch 2, 13x11 (phases with taps a stride apart)', x: [2, 5, 13, 11], w: [8, 5, 5, 4], a: attrs([3, 2], [2, 1], { dilation: [2, 3] }) },
  { what: '3x3 pad 1, 9 -> 13 channels, batch 3, 20x18 (a long K: split-K by the rule)', x: [3, 9, 20, 18], w: [13, 9, 3, 3], a: attrs(1, 1) },
];

const outSize = (h: number, k: number, s: number, p: number, d: number) => Math.floor((h + 2 * p - d * (k - 1) - 1) / s) + 1;
const yShape = ({ x, w, a }: ConvCase): Shape => [x[0], w[0], outSize(x[2], w[2], a.stride[0], a.padding[0], a.dilation[0]), outSize(x[3], w[3], a.stride[1], a.padding[1], a.dilation[1])];

let seed = 7;
const random = (shape: Shape) => {
  const r = mulberry32(seed++);
  return tensor(shape, Array.from({ length: numel(shape) }, () => 4 * r() - 2));
};

/** The op's node over fresh random operands, the interpreter's float32 result, and the operands' data. */
function problem(op: ConvOp, c: ConvCase) {
  const g = new Graph();
  const y = yShape(c);
  const shapes: Shape[] = op === 'conv2d' ? [c.x, c.w] : op === 'conv2dGradInput' ? [y, c.w] : [c.x, y];
  const extra = op === 'conv2d' ? {} : op === 'conv2dGradInput' ? { inputSize: [c.x[2], c.x[3]] } : { kernelSize: [c.w[2], c.w[3]] };
  const leaves = shapes.map((s, i) => g.input(`x${i}`, s));
  const node = g.node(op, leaves, { ...c.a, ...extra } as never);
  g.output('y', node);
  const feeds = Object.fromEntries(shapes.map((s, i) => [`x${i}`, random(s)]));
  const expected = interpret(g, feeds, {}, 'f32').outputs.y.data;
  const spec = { node, inputs: leaves.map((l) => ({ shape: l.shape, dtype: l.dtype })) } as KernelSpec<ConvOp>;
  return { spec, expected, data: shapes.map((_, i) => feeds[`x${i}`].data) };
}

async function expectMatches(plan: KernelPlan, p: ReturnType<typeof problem>): Promise<void> {
  const bytes = await runPlan(plan, p.data, numel(p.spec.node.shape) * 4);
  expect(new Float32Array(bytes)).toBeAllclose(p.expected, { rtol: 1e-4, atol: 1e-4 });
}

const OPS: ConvOp[] = ['conv2d', 'conv2dGradInput', 'conv2dGradWeight'];
const gemmLabel = (plan: KernelPlan) => plan.dispatches[0]?.label ?? '';

describe.each([
  ['device caps', testCaps],
  ['64 invocations', async () => SMALL64],
] as const)('convolutions with %s', (_, getCaps) => {
  describe.each(CASES.map((c) => [c.what, c] as const))('%s', (_what, c) => {
    it.each(OPS)('%s: the implicit GEMM, the direct loops and the rule all match the interpreter', async (op) => {
      const caps = await getCaps();
      const p = problem(op, c);
      const gemm = convKernelOn(p.spec, caps, 'gemm');
      expect(gemmLabel(gemm)).toContain(':gemm');
      await expectMatches(gemm, p);
      const direct = convKernelOn(p.spec, caps, 'direct');
      expect(gemmLabel(direct)).not.toContain(':gemm');
      await expectMatches(direct, p);
      await expectMatches(convKernelOn(p.spec, caps), p);
    });
  });

  it('conv2dGradWeight with K split in 1, 3 and 7 chunks matches the interpreter', async () => {
    const caps = await getCaps();
    for (const c of [CASES[0], CASES[3], CASES[5]]) {
      const p = problem('conv2dGradWeight', c);
      const K = numel(yShape(c)) / c.w[0];
      for (const parts of [1, 3, 7]) {
        const chunk = Math.ceil(K / parts / 16) * 16;
        const split: ConvSplitK | undefined = parts === 1 ? undefined : { splits: Math.ceil(K / chunk), chunk };
        const plan = convKernelOn(p.spec, caps, 'gemm', { split });
        expect(plan.dispatches.length).toBe(split ? 2 : 1);
        await expectMatches(plan, p);
      }
    }
  });
});

describe('the implicit GEMM with every tile that fits the device', () => {
  it.each(OPS)('%s', async (op) => {
    const caps = await testCaps();
    const p = problem(op, CASES[6]);
    for (const tile of CONV_TILES.filter((t) => convTileFits(t, caps))) {
      const plan = convKernelOn(p.spec, caps, 'gemm', { tile });
      expect(plan.dispatches[0].code).toContain(`tile ${convTileName(tile)}`);
      await expectMatches(plan, p);
    }
  });

  it('splits the weight gradient of a long K by the rule (and the result still matches)', async () => {
    const caps = await testCaps();
    const p = problem('conv2dGradWeight', CASES[8]);
    const rule = convPathOf(p.spec, caps);
    expect(rule.path === 'gemm' && rule.split && rule.split.splits).toBeGreaterThan(1);
    await expectMatches(convKernelOn(p.spec, caps), p);
  });
});
