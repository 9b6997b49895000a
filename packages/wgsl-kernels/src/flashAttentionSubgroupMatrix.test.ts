// Which forward kernel attention gets with `FlashConfig.tensorCores`, and the parts of the WGSL that carry it (f16
// staging of q, k, v; S = Q·Kᵀ and P·V on subgroup matrices; the two passes; head windows). Numerics need a GPU with
// subgroup matrices: apps/bench/src/tcAttention.ts checks them against the interpreter there.
import { type AttentionAttrs, Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { defaultFlashConfig, flashAttentionLsePlan, flashAttentionPlan, flashAttentionWithLsePlan } from './flashAttention.js';
import { COMPAT_CAPS, type DeviceCaps, type KernelSpec } from './kernel.js';

const H100: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupStorageSize: 49152, maxStorageBuffersPerShaderStage: 16, maxStorageBufferBindingSize: 2 ** 31, subgroups: true, shaderF16: true };
const MIXED: DeviceCaps = { ...H100, mixedMatmul: { m: 16, n: 16, k: 16 } };
const TC = { ...defaultFlashConfig(MIXED), tensorCores: true };

/** An attention-family spec over q, k, v of [B, T, H, D] (seq-major), or head windows of one [B, T, 3H, D] tensor. */
function spec<Op extends 'attention' | 'attentionLse' | 'attentionWithLse'>(op: Op, t: number, d: number, o: { fused?: boolean; causal?: boolean } = {}): KernelSpec<Op> {
  const g = new Graph();
  const h = 6;
  const attrs: AttentionAttrs = { causal: o.causal ?? true, scale: 1 / Math.sqrt(d), seqMajor: true, ...(o.fused ? { window: { heads: h, offsets: [0, h, 2 * h] } } : {}) };
  const qkv = o.fused ? g.input('qkv', [4, t, 3 * h, d]) : undefined;
  const [q, k, v] = qkv ? [qkv, qkv, qkv] : ['q', 'k', 'v'].map((n) => g.input(n, [4, t, h, d]));
  const node = g.node(op, op === 'attentionLse' ? [q, k] : [q, k, v], attrs);
  return { node, inputs: node.inputs.map((id) => ({ shape: g.get(id).shape, dtype: g.get(id).dtype })) } as KernelSpec<Op>;
}

const mmas = (code: string) => (code.match(/subgroupMatrixMultiplyAccumulate/g) ?? []).length;

describe('attention forward on subgroup matrices (opt-in)', () => {
  it('keeps the fp32 flash kernel without the opt-in or without the tensor-core policy', () => {
    for (const [caps, cfg] of [[MIXED, defaultFlashConfig(MIXED)], [H100, TC]] as const) {
      const code = flashAttentionWithLsePlan(spec('attentionWithLse', 256, 64), caps, { out: true, lse: true }, cfg).dispatches[0].code;
      expect(code).not.toMatch(/subgroup_matrix/);
    }
  });

  it('writes output and log-sum-exp in one dispatch of 64-row workgroups: a statistics pass, then P·V', () => {
    const plan = flashAttentionWithLsePlan(spec('attentionWithLse', 256, 64, { fused: true }), MIXED, { out: true, lse: true }, TC);
    expect(plan.dispatches).toHaveLength(1);
    const [d] = plan.dispatches;
    expect(d.grid).toEqual([4, 4 * 6, 1]);
    expect(d.workgroupSize).toEqual([128, 1, 1]);
    expect(d.bindings.map((b) => b.source)).toEqual([
      { kind: 'input', index: 0 },
      { kind: 'input', index: 1 },
      { kind: 'input', index: 2 },
      { kind: 'output', index: 0 },
      { kind: 'output', index: 1 },
    ]);
    expect(d.code).toContain('enable chromium_experimental_subgroup_matrix;');
    // 64-key tiles at D = 64: S = Q·Kᵀ is 4 blocks of 4 steps, in both passes; P·V 4 steps of 4 blocks
    expect(mmas(d.code)).toBe(16 + 16 + 16);
    expect(d.code).toContain('key tiles of 64');
    // q, k, v rounded to f16 as they are staged; K read column-major as Kᵀ; the head windows' rows of 18 heads
    expect(d.code).toMatch(/Ks\[o\] = f16\(val\.x\)/);
    expect(d.code).toMatch(/subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>\(&Ks/);
    expect(d.code).toContain('* 18u');
  });

  it('runs one pass for the log-sum-exp alone (no V), and writes the output alone for attention', () => {
    const lse = flashAttentionLsePlan(spec('attentionLse', 256, 64), MIXED, TC).dispatches[0];
    expect(lse.code).not.toContain('Vs');
    expect(mmas(lse.code)).toBe(16);
    expect(lse.bindings.at(-1)?.source).toEqual({ kind: 'output' });
    const out = flashAttentionPlan(spec('attention', 256, 64), MIXED, TC).dispatches[0];
    expect(mmas(out.code)).toBe(48);
    expect(out.code).not.toContain('lse[');
  });

  it('shrinks the key tile to stay within 48 KiB at D = 128, and leaves D not a multiple of 16 to the fp32 kernel', () => {
    const wide = flashAttentionWithLsePlan(spec('attentionWithLse', 200, 128), MIXED, { out: true, lse: true }, TC).dispatches[0].code;
    expect(wide).toContain('key tiles of 32');
    const odd = flashAttentionWithLsePlan(spec('attentionWithLse', 200, 40), MIXED, { out: true, lse: true }, TC).dispatches[0].code;
    expect(odd).not.toMatch(/subgroup_matrix/);
  });

  it('skips causal key tiles past the block and masks keys past the query only when causal', () => {
    const causal = flashAttentionWithLsePlan(spec('attentionWithLse', 100, 64), MIXED, { out: true, lse: true }, TC).dispatches[0].code;
    expect(causal).toContain('let tend = min(q0 + 64u, 100u);');
    expect(causal).toContain('<= qi)');
    const full = flashAttentionWithLsePlan(spec('attentionWithLse', 100, 64, { causal: false }), MIXED, { out: true, lse: true }, TC).dispatches[0].code;
    expect(full).toContain('let tend = 100u;');
    expect(full).not.toContain('<= qi)');
  });
});
