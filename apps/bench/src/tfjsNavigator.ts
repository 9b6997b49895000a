// Puts a Dawn adapter on `navigator.gpu` for TF.js in Node (imported before TF.js so its WebGPU backend
// finds it). NEURA_ADAPTER=opengles selects llvmpipe, which exists only in compatibility mode.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
process.env.EGL_PLATFORM ??= 'surfaceless';
const { create, globals } = require('webgpu');
Object.assign(globalThis, globals);
const backend = process.env.NEURA_ADAPTER === 'opengles' ? 'opengles' : 'vulkan';
const gpu = create([`backend=${backend}`]);
if (backend === 'opengles') {
  const request = gpu.requestAdapter.bind(gpu);
  gpu.requestAdapter = (o: object = {}) => request({ ...o, featureLevel: 'compatibility' });
}
(globalThis as { navigator?: unknown }).navigator = { gpu, userAgent: 'node' };
