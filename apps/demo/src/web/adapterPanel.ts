// The adapter panel of the demo: which WebGPU adapter runs the page (vendor, architecture, backend, software or
// not), the optional features the device got, and the limits that shape kernels. Pure: a NeuraDevice in, HTML out.

import type { NeuraDevice } from '@neura/runtime-webgpu';
import { bytes, esc } from './html.js';

/** Limits that decide kernel shapes and what fits, with how to show them. */
const LIMITS: readonly [keyof GPUSupportedLimits, 'n' | 'bytes'][] = [
  ['maxComputeInvocationsPerWorkgroup', 'n'],
  ['maxComputeWorkgroupSizeX', 'n'],
  ['maxComputeWorkgroupStorageSize', 'bytes'],
  ['maxStorageBuffersPerShaderStage', 'n'],
  ['maxStorageBufferBindingSize', 'bytes'],
  ['maxBufferSize', 'bytes'],
  ['maxComputeWorkgroupsPerDimension', 'n'],
];

/** The panel's HTML. */
export function adapterPanelHtml(device: NeuraDevice): string {
  const i = device.adapterInfo;
  const limits = device.gpu.limits;
  return [
    `<p class="big">${esc(device.name)}</p>`,
    '<table class="kv">',
    ...[
      ['vendor', i.vendor],
      ['architecture', i.architecture],
      ['device', i.device],
      ['description', i.description],
      ['backend', i.backend],
      ['software renderer', i.software ? 'yes' : 'no'],
      ['features', [...device.features].join(', ') || 'none'],
    ].map(([k, v]) => `<tr><th>${k}</th><td>${esc(v || '—')}</td></tr>`),
    ...LIMITS.map(([k, kind]) => {
      const v = Number(limits[k]);
      return `<tr><th>${k}</th><td>${kind === 'bytes' ? bytes(v) : v}</td></tr>`;
    }),
    '</table>',
  ].join('');
}
