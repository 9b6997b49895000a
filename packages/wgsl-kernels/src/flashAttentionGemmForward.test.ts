// Which attention-forward kernel and shape each device gets (flashAttention.ts's one choice): the row kernel unless
// a FlashConfig asks for the matmul-style one, then the first shipped shape whose workgroup memory fits, a forced
// shape where it fits, the row kernel where none does. No GPU: the generated WGSL's strategy line says what was
// chosen (flashAttentionGemmForward.gpu.test.ts runs the kernels).
import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { type FlashConfig, flashAttentionLsePlan, flashAttentionWithLsePlan } from './flashAttention.js';
import { GEMM_FORWARD_CONFIGS, gemmForwardSmem } from './flashAttentionGemmForward.js';
import { COMPAT_CAPS, type DeviceCaps, type KernelSpec } from './kernel.js';

/** Dawn's limits on the H100 / H200 (Vulkan): 48 KiB of workgroup memory. */
const H100: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 1024, maxStorageBuffersPerShaderStage: 10, maxComputeWorkgroupStorageSize: 49152, subgroups: true };
/** llvmpipe's (the CI software adapter): 32 KiB. */
const LLVMPIPE: DeviceCaps = { ...H100, maxComputeWorkgroupStorageSize: 32768, subgroups: false };
const GEMM: FlashConfig = { rows: 64, tile: 16, forward: 'gemm' };

/** The strategy line and grid of attentionWithLse (both results) and attentionLse at the GPT step's shape: B2 T256 H6, q, k, v head windows. */
function chosen(caps: DeviceCaps, d: number, cfg?: FlashConfig): { withLse: string; lse: string; grid: readonly number[] } {
  const g = new Graph();
  const shape = [2, 256, 18, d];
  const x = g.input('qkv', shape);
  const attrs = { causal: true, scale: 0.125, seqMajor: true, window: { heads: 6, offsets: [0, 6, 12] } };
  const inputs = [0, 1, 2].map(() => ({ shape, dtype: 'f32' as const }));
  const w = flashAttentionWithLsePlan({ node: g.node('attentionWithLse', [x, x, x], attrs), inputs } as KernelSpec<'attentionWithLse'>, caps, { out: true, lse: true }, cfg);
  const l = flashAttentionLsePlan({ node: g.node('attentionLse', [x, x], attrs), inputs: inputs.slice(0, 2) } as KernelSpec<'attentionLse'>, caps, cfg);
  return { withLse: w.dispatches[0].code.split('\n')[1], lse: l.dispatches[0].code.split('\n')[1], grid: w.dispatches[0].grid };
}

describe('attention forward kernels', () => {
  it('stay on the row kernel unless the config asks for the matmul-style one', () => {
    expect(chosen(H100, 64).withLse).toContain('a thread per row');
    expect(chosen(H100, 64, { rows: 64, tile: 16, forward: 'rows' }).withLse).toContain('a thread per row');
  });

  it('run matmul-style on the H100 in 64 x 32 tiles of 128 threads with Q resident, a workgroup per 64 query rows', () => {
    const { withLse, lse, grid } = chosen(H100, 64, GEMM);
    expect(withLse).toContain('forward and log-sum-exp, register-tiled matmuls: a workgroup of 128 per (head, 64 query rows), key tiles of 32, 4x4 thread tiles, D streamed 64 at a time, Q resident, V 32 rows at a time');
    expect(lse).toContain('log-sum-exp, register-tiled matmuls: a workgroup of 128 per (head, 64 query rows)');
    expect(grid).toEqual([4, 12, 1]);
  });

  it('take 64 x 64 tiles of 256 threads with Q streamed within llvmpipe 32 KiB, and 32 x 32 of 64 threads within 16 KiB', () => {
    expect(chosen(LLVMPIPE, 64, GEMM).withLse).toContain('a workgroup of 256 per (head, 64 query rows), key tiles of 64, 4x4 thread tiles, D streamed 16 at a time, V 32 rows');
    expect(chosen({ ...LLVMPIPE, maxComputeWorkgroupStorageSize: 16384 }, 64, GEMM).withLse).toContain('a workgroup of 64 per (head, 32 query rows), key tiles of 32');
  });

  it('fit a shipped shape within 48 KiB for D up to 128, the first one 36 KiB at D = 64', () => {
    const dm = (d: number) => ({ heads: 12, seqHeads: 6, tq: 256, tk: 256, d, dv: d, views: {} });
    expect(gemmForwardSmem(dm(64), { out: true, lse: true }, GEMM_FORWARD_CONFIGS[0])).toBe(36864);
    for (const d of [16, 32, 48, 64, 80, 128]) expect(GEMM_FORWARD_CONFIGS.some((c) => (gemmForwardSmem(dm(d), { out: true, lse: true }, c) ?? Infinity) <= 49152), `D = ${d}`).toBe(true);
    expect(chosen(H100, 128, GEMM).withLse).toContain('register-tiled');
  });

  it('run a forced shape where it fits, the shipped one where it does not, the row kernel where none does', () => {
    const forced: FlashConfig = { ...GEMM, gemmForward: { threads: 64, queries: 64, keys: 64, rowsPerThread: 8, chunk: 16, residentQ: true } };
    expect(chosen(H100, 64, forced).withLse).toContain('a workgroup of 64 per (head, 64 query rows), key tiles of 64, 8x8 thread tiles, D streamed 16 at a time, Q resident');
    expect(chosen(LLVMPIPE, 64, forced).withLse).toContain('a workgroup of 256 per (head, 64 query rows)');
    expect(chosen({ ...LLVMPIPE, maxComputeWorkgroupStorageSize: 4096 }, 64, GEMM).withLse).toContain('a thread per row');
  });
});
