// Which gradient kernels attention gets with `FlashConfig.tensorCores`, and the parts of the WGSL that carry them
// (f16 staging; S, dP, dQ / dV, dK products on subgroup matrices; head windows of attentionGradQKV's one result).
// Numerics need a GPU with subgroup matrices: apps/bench/src/tcAttention.ts checks them against the interpreter.
import { type AttentionAttrs, Graph, type OpAttrs } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { defaultFlashConfig, flashAttentionGradKVPlan, flashAttentionGradPlan, flashAttentionGradQKVPlan } from './flashAttention.js';
import { COMPAT_CAPS, type DeviceCaps, type KernelSpec } from './kernel.js';

const H100: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupStorageSize: 49152, maxStorageBuffersPerShaderStage: 16, maxStorageBufferBindingSize: 2 ** 31, subgroups: true, shaderF16: true };
const MIXED: DeviceCaps = { ...H100, mixedMatmul: { m: 16, n: 16, k: 16 } };
const TC = { ...defaultFlashConfig(MIXED), tensorCores: true };
const H = 6;

/** A gradient spec over q, k, v of [4, T, H, D] (seq-major), or head windows of one [4, T, 3H, D] tensor (fused). */
function spec<Op extends 'attentionGrad' | 'attentionGradKV' | 'attentionGradQKV'>(op: Op, t: number, d: number, o: { fused?: boolean; causal?: boolean; wrt?: 'q' | 'k' } = {}): KernelSpec<Op> {
  const g = new Graph();
  const attrs = { causal: o.causal ?? true, scale: 1 / Math.sqrt(d), seqMajor: true, deltaFromOut: true, ...(o.fused ? { window: { heads: H, offsets: [0, H, 2 * H] } } : {}) } as AttentionAttrs;
  const qkv = o.fused ? g.input('qkv', [4, t, 3 * H, d]) : undefined;
  const [q, k, v] = qkv ? [qkv, qkv, qkv] : ['q', 'k', 'v'].map((n) => g.input(n, [4, t, H, d]));
  const inputs = [q, k, v, g.input('dout', [4, t, H, d]), g.input('lse', [4, t, H]), g.input('out', [4, t, H, d])];
  // attentionGrad names its gradient; the other two write theirs by result
  const node = g.node(op, inputs, (op === 'attentionGrad' ? { ...attrs, wrt: o.wrt ?? 'q' } : attrs) as OpAttrs[Op]);
  return { node, inputs: node.inputs.map((id) => ({ shape: g.get(id).shape, dtype: g.get(id).dtype })) } as KernelSpec<Op>;
}

const mmas = (code: string) => (code.match(/subgroupMatrixMultiplyAccumulate/g) ?? []).length;

describe('attention gradients on subgroup matrices (opt-in)', () => {
  it('keeps the fp32 kernels without the opt-in or without the tensor-core policy', () => {
    for (const [caps, cfg] of [[MIXED, defaultFlashConfig(MIXED)], [H100, TC]] as const)
      for (const d of flashAttentionGradQKVPlan(spec('attentionGradQKV', 256, 64, { fused: true }), caps, cfg).dispatches) expect(d.code).not.toMatch(/subgroup_matrix/);
  });

  it('runs attentionGradQKV as a dq pass and a dk + dv pass of 64-row workgroups, writing one result at three head windows', () => {
    const plan = flashAttentionGradQKVPlan(spec('attentionGradQKV', 256, 64, { fused: true }), MIXED, TC);
    expect(plan.dispatches).toHaveLength(2);
    const [dq, dkv] = plan.dispatches;
    expect(dq.grid).toEqual([4, 4 * H, 1]);
    expect(dq.workgroupSize).toEqual([128, 1, 1]);
    // dq: S and dP over 32-key tiles (2 blocks of 4 steps each), then dS·K (2 steps of 4 blocks)
    expect(mmas(dq.code)).toBe(8 + 8 + 8);
    expect(dq.code).toContain('key tiles of 32');
    // dk + dv: Sᵀ and dPᵀ, then Pᵀ·dO and dSᵀ·Q
    expect(mmas(dkv.code)).toBe(8 + 8 + 8 + 8);
    expect(dkv.code).toContain('query tiles of 32');
    // one result binding; rows of 18 heads: dq at head 0, dk at head 6, dv at head 12 of each row
    for (const d of plan.dispatches) expect(d.code.match(/var<storage, read_write>/g)).toHaveLength(1);
    expect(dq.code).toMatch(/y\[\(\(h \/ 6u\) \* 4608u \+ \(aa\) \* 18u \+ h % 6u\)/);
    expect(dkv.code).toMatch(/y\[\(\(h \/ 6u\) \* 4608u \+ \(aa\) \* 18u \+ 6u \+ h % 6u\)/);
    expect(dkv.code).toMatch(/y\[\(\(h \/ 6u\) \* 4608u \+ \(aa\) \* 18u \+ 12u \+ h % 6u\)/);
    // q, k, v, dO rounded to f16 as they are staged; Δ from attention's output rows (deltaFromOut)
    expect(dq.code).toMatch(/As\[o\] = f16\(val\.x\)/);
    expect(dq.code).toContain('dot(dout[');
  });

  it('takes attentionGrad wrt q and attentionGradKV for both, and leaves dk or dv alone to the fp32 kernels', () => {
    expect(flashAttentionGradPlan(spec('attentionGrad', 100, 32), MIXED, TC).dispatches[0].code).toContain('gradient dq on subgroup matrices');
    const kv = flashAttentionGradKVPlan(spec('attentionGradKV', 100, 32), MIXED, ['k', 'v'], TC).dispatches[0];
    expect(kv.code).toContain('gradient dk and dv on subgroup matrices');
    expect(kv.code.match(/var<storage, read_write>/g)).toHaveLength(2);
    expect(flashAttentionGradPlan(spec('attentionGrad', 100, 32, { wrt: 'k' }), MIXED, TC).dispatches[0].code).not.toMatch(/subgroup_matrix/);
    expect(flashAttentionGradKVPlan(spec('attentionGradKV', 100, 32), MIXED, ['v'], TC).dispatches[0].code).not.toMatch(/subgroup_matrix/);
  });

  it('skips causal tiles: dq walks keys up to its block, dk and dv start at the query tile holding the block', () => {
    const [dq, dkv] = flashAttentionGradQKVPlan(spec('attentionGradQKV', 100, 64, { fused: true }), MIXED, TC).dispatches.map((d) => d.code);
    expect(dq).toContain('let tend = min(a0 + 64u, 100u);');
    expect(dkv).toContain('let tstart = (a0 / 32u) * 32u;');
    const [full] = flashAttentionGradQKVPlan(spec('attentionGradQKV', 100, 64, { fused: true, causal: false }), MIXED, TC).dispatches.map((d) => d.code);
    expect(full).toContain('let tend = 100u;');
  });

  it('leaves D not a multiple of 16, or over 128, to the fp32 kernels', () => {
    for (const d of [40, 144]) for (const x of flashAttentionGradQKVPlan(spec('attentionGradQKV', 64, d, { fused: true }), MIXED, TC).dispatches) expect(x.code).not.toMatch(/subgroup_matrix/);
  });
});
