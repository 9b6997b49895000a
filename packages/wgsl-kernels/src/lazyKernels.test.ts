// The on-demand generators (lazyKernels.ts): a stub called before its module loaded names what to do; loadKernels
// loads only the groups its ops need; once loaded, the registry's plan is the module's own (same WGSL). The f16
// storage conversion loads the same way, only when asked for (`{ mixed: true }`: a graph with f16 tensors).
import { Graph, type OpAttrs, type OpKind } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { conv2dKernel } from './conv.js';
import { COMPAT_CAPS, KernelError, type KernelSpec } from './kernel.js';
import { kernelGroupLoaded } from './lazyKernels.js';
import { generateKernel, KERNELS, loadKernels } from './registry.js';

/** An add of two tensors of `dtype`: with f16 ones, its plan needs the f16 storage conversion. */
function addSpec(dtype: 'f16' | 'f32'): KernelSpec<'add'> {
  const g = new Graph({ recordSites: false });
  const ins = [g.input('a', [4, 8], dtype), g.input('b', [4, 8], dtype)];
  return { node: g.node('add', ins, {}), inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })) };
}

const F16_CAPS = { ...COMPAT_CAPS, shaderF16: true };
const MIXED_CAPS = { ...F16_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupStorageSize: 49152, subgroups: true, mixedMatmul: { m: 16, n: 16, k: 16 } };

/** A 512×384 by 384×384 matmul (big enough for the subgroup-matrix path under the mixed policy). */
function matmulSpec(): KernelSpec<'matmul'> {
  const g = new Graph({ recordSites: false });
  const ins = [g.input('a', [512, 384]), g.input('b', [384, 384])];
  return { node: g.node('matmul', ins, { transA: false, transB: false }), inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })) };
}

function convSpec(): KernelSpec<'conv2d'> {
  const g = new Graph({ recordSites: false });
  const ins = [g.input('x', [1, 2, 6, 6]), g.input('w', [3, 2, 3, 3])];
  const attrs: OpAttrs['conv2d'] = { stride: [1, 1], padding: [1, 1], dilation: [1, 1], groups: 1 };
  return { node: g.node('conv2d', ins, attrs), inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })) };
}

describe('on-demand kernel generators', () => {
  it('loads nothing for an MLP step’s ops, and a stub called before loading throws a KernelError saying what to await', async () => {
    await loadKernels(['matmul', 'add', 'relu', 'softmaxCrossEntropy', 'sum', 'pointwiseMultiTensor'] as OpKind[]);
    expect([kernelGroupLoaded('attention'), kernelGroupLoaded('conv'), kernelGroupLoaded('indexing'), kernelGroupLoaded('sequence')]).toEqual([false, false, false, false]);
    expect(() => generateKernel(convSpec(), COMPAT_CAPS)).toThrow(KernelError);
    expect(() => generateKernel(convSpec(), COMPAT_CAPS)).toThrow(/conv2d .*the conv kernel generators are not loaded yet: await loadKernels/);
  });

  it('loads the group an op needs, after which the registry’s plan is the module’s own', async () => {
    await Promise.all([loadKernels(['conv2d']), loadKernels(['maxPool2d'])]); // concurrent loads share one import
    expect([kernelGroupLoaded('attention'), kernelGroupLoaded('conv'), kernelGroupLoaded('indexing')]).toEqual([false, true, false]);
    expect(generateKernel(convSpec(), COMPAT_CAPS)).toEqual(conv2dKernel(convSpec(), COMPAT_CAPS));
    await loadKernels(Object.keys(KERNELS) as OpKind[]);
    expect([kernelGroupLoaded('attention'), kernelGroupLoaded('indexing'), kernelGroupLoaded('sequence')]).toEqual([true, true, true]);
  });

  it('loads the mixed-precision code only when asked, and a plan that needs it before then names what to await', async () => {
    await loadKernels(Object.keys(KERNELS) as OpKind[]);
    expect(kernelGroupLoaded('mixed')).toBe(false);
    // an f32 plan never needs it
    expect(generateKernel(addSpec('f32'), F16_CAPS).dispatches[0].code).not.toContain('f16');
    expect(() => generateKernel(addSpec('f16'), F16_CAPS)).toThrow(/add has f16 tensors, and f16 storage is not loaded yet: await loadKernels\(\[\.\.\.ops\], \{ mixed: true \}\)/);
    expect(() => generateKernel(matmulSpec(), MIXED_CAPS)).toThrow(/the mixed-precision matmuls are not loaded yet: await loadKernels\(\[\.\.\.ops\], \{ mixed: true \}\)/);
    expect(generateKernel(matmulSpec(), COMPAT_CAPS).dispatches[0].code).not.toContain('subgroup_matrix'); // fp32: no need
    await loadKernels(['add'], { mixed: true });
    expect(kernelGroupLoaded('mixed')).toBe(true);
    expect(generateKernel(matmulSpec(), MIXED_CAPS).dispatches[0].code).toContain('subgroup_matrix');
    const code = generateKernel(addSpec('f16'), F16_CAPS).dispatches[0].code;
    expect(code).toMatch(/^enable f16;/m);
    expect(code).toContain('array<f16>');
  });
});
