// Which attention-gradient kernel and shape each device gets (flashAttention.ts's one choice): the matmul-style
// kernels in the largest shipped shape whose workgroup memory fits, the tiled and row kernels where forced or
// where none fits. No GPU: the generated WGSL's strategy line says what was chosen.
import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { flashAttentionGradKVPlan, flashAttentionGradPlan, type FlashConfig } from './flashAttention.js';
import { GEMM_GRAD_CONFIGS, gemmGradSmem } from './flashAttentionGemmGrad.js';
import { COMPAT_CAPS, type DeviceCaps, type KernelSpec } from './kernel.js';

/** Dawn's limits on the H100 / H200 (Vulkan): 48 KiB of workgroup memory. */
const H100: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 1024, maxStorageBuffersPerShaderStage: 10, maxComputeWorkgroupStorageSize: 49152, subgroups: true };
/** llvmpipe's (the CI software adapter): 32 KiB. */
const LLVMPIPE: DeviceCaps = { ...H100, maxComputeWorkgroupStorageSize: 32768, subgroups: false };

/** The strategy lines of the dq and the fused dk + dv kernels at B2 T256 H6 D (causal, seq-major, Δ from the output). */
function chosen(caps: DeviceCaps, d: number, cfg?: FlashConfig): { dq: string; kv: string } {
  const g = new Graph();
  const shapes = [[2, 256, 6, d], [2, 256, 6, d], [2, 256, 6, d], [2, 256, 6, d], [2, 256, 6], [2, 256, 6, d]];
  const leaves = shapes.map((s, i) => g.input(`x${i}`, s));
  const attrs = { causal: true, scale: 0.125, seqMajor: true, deltaFromOut: true };
  const inputs = shapes.map((shape) => ({ shape, dtype: 'f32' as const }));
  const dq = flashAttentionGradPlan({ node: g.node('attentionGrad', leaves, { ...attrs, wrt: 'q' }), inputs } as KernelSpec<'attentionGrad'>, caps, cfg);
  const kv = flashAttentionGradKVPlan({ node: g.node('attentionGradKV', leaves, attrs), inputs } as KernelSpec<'attentionGradKV'>, caps, ['k', 'v'], cfg);
  return { dq: dq.dispatches[0].code.split('\n')[1], kv: kv.dispatches[0].code.split('\n')[1] };
}

describe('attention gradient kernels', () => {
  it('run matmul-style on the H100 in 64 x 64 tiles of 256 threads: D streamed 16 at a time for dq, 8 for dk + dv', () => {
    const { dq, kv } = chosen(H100, 64);
    expect(dq).toContain('dq, register-tiled matmuls: a workgroup of 256 per (head, 64 query rows), key tiles of 64, 4x4 thread tiles, D streamed 16');
    expect(kv).toContain('dk and dv, register-tiled matmuls: a workgroup of 256 per (head, 64 key rows), query tiles of 64, 4x4 thread tiles, D streamed 8');
  });

  it('take 64 x 32 tiles of 128 threads within llvmpipe 32 KiB, and 32 x 32 of 64 threads within 16 KiB', () => {
    expect(chosen(LLVMPIPE, 64).kv).toContain('a workgroup of 128 per (head, 64 key rows), query tiles of 32');
    expect(chosen({ ...LLVMPIPE, maxComputeWorkgroupStorageSize: 16384 }, 64).kv).toContain('a workgroup of 64 per (head, 32 key rows), query tiles of 32');
  });

  it("fit every shipped shape they choose within the device's workgroup memory, D up to 128", () => {
    for (const d of [16, 32, 48, 64, 80, 128])
      for (const writes of [{ q: true } as const, { k: true, v: true }]) {
        const dm = { heads: 12, seqHeads: 6, tq: 256, tk: 256, d, dv: d, views: {} };
        const fits = GEMM_GRAD_CONFIGS.filter((c) => (gemmGradSmem(dm, writes, c) ?? Infinity) <= 49152);
        expect(fits.length, `D = ${d}`).toBeGreaterThan(0);
      }
    expect(chosen(H100, 128).kv).toContain('register-tiled');
  });

  it('stay selectable: tiled and row kernels where the config says so', () => {
    const tiled = chosen(H100, 64, { rows: 64, tile: 16, grad: 'tiled' });
    expect(tiled.kv).toContain('dk and dv, tiled');
    expect(tiled.dq).toContain('dq, tiled');
    expect(chosen(H100, 64, { rows: 64, tile: 16, grad: 'rows' }).dq).toContain('a thread per row');
  });

  it('run a forced shape that does not fit a pass on the shipped shape for that pass', () => {
    const cfg: FlashConfig = { rows: 64, tile: 16, grad: 'gemm', gemm: { threads: 128, anchors: 64, partners: 64, rowsPerThread: 4, chunk: 16 } };
    const { dq, kv } = chosen(H100, 64, cfg);
    expect(dq).toContain('a workgroup of 128 per (head, 64 query rows), key tiles of 64, 4x8 thread tiles, D streamed 16');
    expect(kv).toContain('a workgroup of 256 per (head, 64 key rows), query tiles of 64, 4x4 thread tiles, D streamed 8');
  });
});
