// The rule that picks a convolution's kernel (conv.ts `convPathOf`): the implicit GEMM for the ResNet's convs,
// split-K for their weight gradients, the direct loops for depthwise and few-channel groups and where no tile fits.
import { type Conv2dAttrs, Graph, type Shape } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { convKernelOn, convPathOf } from './conv.js';
import { chooseConvTile, CONV_TILES, convTileFits } from './convGemm.js';
import type { ConvOp } from './convIm2col.js';
import { COMPAT_CAPS, type DeviceCaps, type KernelSpec } from './kernel.js';

const H100ISH: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 1024, maxComputeWorkgroupStorageSize: 49152, maxStorageBufferBindingSize: 2 ** 31 - 4 };
const a = (stride: number, padding: number, groups = 1): Conv2dAttrs => ({ stride: [stride, stride], padding: [padding, padding], dilation: [1, 1], groups });

function spec(op: ConvOp, x: Shape, w: Shape, attrs: Conv2dAttrs): KernelSpec<ConvOp> {
  const g = new Graph({ recordSites: false });
  const out = (h: number, k: number, i: 0 | 1) => Math.floor((h + 2 * attrs.padding[i] - (k - 1) - 1) / attrs.stride[i]) + 1;
  const y: Shape = [x[0], w[0], out(x[2], w[2], 0), out(x[3], w[3], 1)];
  const shapes = op === 'conv2d' ? [x, w] : op === 'conv2dGradInput' ? [y, w] : [x, y];
  const extra = op === 'conv2d' ? {} : op === 'conv2dGradInput' ? { inputSize: [x[2], x[3]] } : { kernelSize: [w[2], w[3]] };
  const ins = shapes.map((s, i) => g.input(`x${i}`, s));
  return { node: g.node(op, ins, { ...attrs, ...extra } as never), inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })) } as KernelSpec<ConvOp>;
}

describe('the conv kernel rule', () => {
  it("takes the implicit GEMM for every conv of ResNet-8's step at batch 128, split-K for the weight gradients", () => {
    const convs: [Shape, Shape, Conv2dAttrs][] = [
      [[128, 16, 28, 28], [16, 16, 3, 3], a(1, 1)],
      [[128, 16, 28, 28], [32, 16, 3, 3], a(2, 1)],
      [[128, 16, 28, 28], [32, 16, 1, 1], a(2, 0)],
      [[128, 32, 14, 14], [64, 32, 3, 3], a(2, 1)],
      [[128, 64, 7, 7], [64, 64, 3, 3], a(1, 1)],
    ];
    for (const [x, w, at] of convs) {
      expect(convPathOf(spec('conv2d', x, w, at), H100ISH)).toMatchObject({ path: 'gemm' });
      expect(convPathOf(spec('conv2dGradInput', x, w, at), H100ISH)).toMatchObject({ path: 'gemm' });
      const dw = convPathOf(spec('conv2dGradWeight', x, w, at), H100ISH);
      expect(dw.path === 'gemm' && (dw.split?.splits ?? 1)).toBeGreaterThan(1);
    }
    // the stem's weight gradient (16 x 9 outputs, K = 100352) too; its forward has K = 9
    expect(convPathOf(spec('conv2dGradWeight', [128, 1, 28, 28], [16, 1, 3, 3], a(1, 1)), H100ISH)).toMatchObject({ path: 'gemm' });
    expect(convPathOf(spec('conv2d', [128, 1, 28, 28], [16, 1, 3, 3], a(1, 1)), H100ISH)).toMatchObject({ path: 'gemm' });
  });

  it('keeps the direct loops for depthwise and few-channel groups, whose GEMM tiles would be mostly padding', () => {
    expect(convPathOf(spec('conv2d', [8, 32, 14, 14], [32, 1, 3, 3], a(1, 1, 32)), H100ISH)).toEqual({ path: 'direct' });
    expect(convPathOf(spec('conv2dGradInput', [8, 32, 14, 14], [32, 1, 3, 3], a(1, 1, 32)), H100ISH)).toEqual({ path: 'direct' });
    expect(convPathOf(spec('conv2d', [4, 3, 9, 9], [4, 3, 3, 3], a(1, 1)), H100ISH)).toEqual({ path: 'direct' });
    // the input gradient of an RGB stem: 3 rows
    expect(convPathOf(spec('conv2dGradInput', [4, 3, 32, 32], [16, 3, 3, 3], a(1, 1)), H100ISH)).toEqual({ path: 'direct' });
  });

  it('keeps the direct loops where no GEMM tile fits the device', () => {
    const tiny: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 16, maxComputeWorkgroupSizeX: 16, maxComputeWorkgroupSizeY: 16 };
    expect(CONV_TILES.some((t) => convTileFits(t, tiny))).toBe(false);
    const s = spec('conv2d', [2, 16, 8, 8], [16, 16, 3, 3], a(1, 1));
    expect(convPathOf(s, tiny)).toEqual({ path: 'direct' });
    expect(convKernelOn(s, tiny).dispatches[0].label).not.toContain(':gemm');
  });

  it('fits the tile to the product and fills the GPU: few rows take a 16-row tile, few pixels smaller tiles', () => {
    expect(chooseConvTile(16, 100352, H100ISH)).toMatchObject({ bm: 16, bn: 128 });
    // 64x128 tiles would leave most of the GPU idle (49 workgroups); with split-K to fill it, the largest lean tile
    expect(chooseConvTile(64, 6272, H100ISH)).toMatchObject({ bm: 32, bn: 64 });
    expect(chooseConvTile(64, 576, H100ISH, 1, false)).toMatchObject({ bm: 64, bn: 128 });
    expect(chooseConvTile(32, 25088, H100ISH)).toMatchObject({ bm: 32, bn: 128 });
    for (const t of CONV_TILES.slice(0, 4)) expect(convTileFits(t, COMPAT_CAPS)).toBe(true);
  });
});

describe('the strided input gradient', () => {
  it('is one GEMM per phase of the stride, each over its own taps (not for a 1x1 stride-2 kernel: phases without taps)', () => {
    const p3 = convKernelOn(spec('conv2dGradInput', [2, 16, 14, 14], [32, 16, 3, 3], a(2, 1)), H100ISH);
    expect(p3.dispatches.map((d) => d.label.replace(/^.*:gemm\[(\d+)x(\d+)x(\d+)\]/, '$1x$2x$3'))).toEqual(['16x128x98:phase00', '16x64x98:phase01', '16x64x98:phase10', '16x32x98:phase11']);
    const p1 = convKernelOn(spec('conv2dGradInput', [2, 16, 14, 14], [32, 16, 1, 1], a(2, 0)), H100ISH);
    expect(p1.dispatches.map((d) => d.label)).toEqual(['conv2dGradInput[2x16x14x14]:gemm[16x32x392]']);
  });
});
