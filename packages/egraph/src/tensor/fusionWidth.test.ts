import { DEFAULT_KERNEL_LIMITS } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { EGraph } from '../core/index.js';
import { DEFAULT_FUSION_WIDTH, DEFAULT_MAX_EXPR_SIZE, deviceFusionWidth, MAX_DEFAULT_POINTWISE_INPUTS } from './fusionWidth.js';
import { fusionExprSize, fusionWidth, type TensorInfo, TensorAnalysis } from './tensorAnalysis.js';

const limits = (buffers: number) => ({ ...DEFAULT_KERNEL_LIMITS, maxStorageBuffersPerShaderStage: buffers });

describe('the fusion width', () => {
  it("is WebGPU's default storage buffers less the output", () => {
    expect(DEFAULT_FUSION_WIDTH).toBe(DEFAULT_KERNEL_LIMITS.maxStorageBuffersPerShaderStage - 1);
    expect(deviceFusionWidth(DEFAULT_KERNEL_LIMITS)).toBe(DEFAULT_FUSION_WIDTH);
  });

  it("follows a device's storage buffers, at least 1 and at most MAX_DEFAULT_POINTWISE_INPUTS", () => {
    expect(deviceFusionWidth(limits(4))).toBe(3);
    expect(deviceFusionWidth(limits(1))).toBe(1);
    expect(deviceFusionWidth(limits(64))).toBe(MAX_DEFAULT_POINTWISE_INPUTS);
  });

  it("is the tensor analysis's width, which rules read through fusionWidth(egraph)", () => {
    const analysis = new TensorAnalysis();
    const egraph = new EGraph<TensorInfo>(analysis);
    expect(fusionWidth(egraph)).toBe(DEFAULT_FUSION_WIDTH);
    expect(fusionExprSize(egraph)).toBe(DEFAULT_MAX_EXPR_SIZE);
    analysis.widen(11);
    expect(fusionWidth(egraph)).toBe(11);
    const narrow = new EGraph<TensorInfo>(new TensorAnalysis({ maxPointwiseInputs: 3, maxExprSize: 20 }));
    expect([fusionWidth(narrow), fusionExprSize(narrow)]).toEqual([3, 20]);
  });

  it('falls back to the defaults under another analysis', () => {
    const other = new EGraph<TensorInfo>({ make: () => ({ shape: [], dtype: 'f32' }), merge: (a) => a });
    expect([fusionWidth(other), fusionExprSize(other)]).toEqual([DEFAULT_FUSION_WIDTH, DEFAULT_MAX_EXPR_SIZE]);
  });
});
