// ErrorScopes on a real device: an error made inside a stretch is thrown by `check` with the phase's name, an
// error made outside every stretch (while ours are ended, as across an await) is not ours, and the scope stack
// is left balanced (a later scope of someone else still sees its own error).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevice, type NeuraDevice } from './device.js';
import { ErrorScopes } from './errorScopes.js';
import { GpuValidationError } from './errors.js';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device?.destroy());

/** A validation error: a buffer that is both MAP_READ and STORAGE. */
const invalidBuffer = (gpu: GPUDevice) => gpu.createBuffer({ label: 'invalid', size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.STORAGE });

describe('ErrorScopes', () => {
  it('throws the error of a stretch with the phase, ignores errors made while ended, and leaves the stack balanced', async () => {
    const gpu = device.gpu;
    const clean = new ErrorScopes(gpu);
    clean.begin();
    gpu.createBuffer({ label: 'fine', size: 16, usage: GPUBufferUsage.STORAGE }).destroy();
    clean.end();
    gpu.pushErrorScope('validation'); // someone else's scope, while ours is ended
    invalidBuffer(gpu);
    const theirs = await gpu.popErrorScope();
    clean.begin();
    await expect(clean.check('compile')).resolves.toBeUndefined();
    expect(theirs?.message).toBeTruthy(); // the error went to the scope open when it was made

    const failing = new ErrorScopes(gpu);
    failing.begin();
    invalidBuffer(gpu);
    failing.end();
    failing.begin();
    const err = await failing.check('compile').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GpuValidationError);
    expect(err).toMatchObject({ phase: 'compile', message: expect.stringMatching(/^WebGPU error during compile: .*invalid/s) });
    // balanced: a new scope pair sees nothing left over
    gpu.pushErrorScope('validation');
    expect(await gpu.popErrorScope()).toBeNull();
  });
});
