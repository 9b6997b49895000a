// createDevice says why WebGPU is unusable with a typed WebGpuUnavailableError (reason + what was tried), instead
// of a bare Error: a page can catch it and fall back. The GPU objects here stand in for a browser's `navigator.gpu`
// (no adapter; an adapter that refuses the device); the thing under test is createDevice's handling of them.

import { describe, expect, it } from 'vitest';
import { createDevice, WebGpuUnavailableError } from '../src/index.js';

const adapterLike = (requestDevice: () => Promise<GPUDevice>) =>
  ({ features: new Set<string>(['shader-f16']), limits: {}, info: { vendor: 'test', architecture: '', device: 'refusing', description: '' }, requestDevice }) as unknown as GPUAdapter;

describe('createDevice without a usable WebGPU', () => {
  it("is a WebGpuUnavailableError 'no-adapter' when requestAdapter() gives none", async () => {
    const gpu = { requestAdapter: async () => null } as unknown as GPU;
    const e = await createDevice({ gpu }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WebGpuUnavailableError);
    expect((e as WebGpuUnavailableError).reason).toBe('no-adapter');
    expect((e as Error).message).toMatch(/requestAdapter\(\) returned no adapter/);
  });

  it("is a WebGpuUnavailableError 'device-refused' naming the features asked for, with the adapter's error as cause", async () => {
    const refusal = new TypeError('feature shader-f16 is blocked');
    const gpu = { requestAdapter: async () => adapterLike(() => Promise.reject(refusal)) } as unknown as GPU;
    const e = await createDevice({ gpu }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WebGpuUnavailableError);
    expect((e as WebGpuUnavailableError).reason).toBe('device-refused');
    expect((e as Error).message).toMatch(/refused a device with features shader-f16: feature shader-f16 is blocked/);
    expect((e as Error).cause).toBe(refusal);
  });
});
