// Before the optional peer `webgpu` is installed: every package imports, and createDevice() in Node fails with
// an error that names the package to install (never a bare ERR_MODULE_NOT_FOUND).
import assert from 'node:assert/strict';
import { Graph } from '@neura/ir';
import { mlp } from '@neura/nn';
import { createDevice } from '@neura/runtime-webgpu';

assert.equal(typeof Graph, 'function');
assert.equal(typeof mlp, 'function');
await assert.rejects(createDevice(), /install the optional peer dependency 'webgpu'/);
console.log('pack-check: without webgpu, createDevice() names the missing peer dependency');
