// The adapter panel of the demo: which WebGPU adapter runs the page (vendor, architecture, backend, software or
// not), the optional features the device got, and the limits that shape kernels. Pure: a NeuraDevice in, HTML out.

import type { AdapterInfo, NeuraDevice } from '@neura/runtime-webgpu';
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

/** A hex PCI id such as `0xc0de` or `0x2684`: says nothing to a reader. */
const HEX_ID = /^(0x)?[0-9a-f]+$/i;

/**
 * A readable adapter name: vendor and architecture (`google swiftshader`, `nvidia ada`), else the driver
 * description or device name; hex ids (browsers report SwiftShader's device as `0xc0de`) are left out.
 */
export function adapterLabel(info: Pick<AdapterInfo, 'vendor' | 'architecture' | 'device' | 'description'>): string {
  const readable = (s: string) => (HEX_ID.test(s.trim()) ? '' : s.trim());
  const head = [readable(info.vendor), readable(info.architecture)].filter(Boolean).join(' ');
  const detail = readable(info.description) || readable(info.device);
  if (!head) return detail || 'unknown adapter';
  // the driver's own words after vendor and architecture, unless they only repeat them
  return detail && !head.toLowerCase().includes(detail.toLowerCase()) ? `${head} — ${detail}` : head;
}

/** The adapter's readable name with its backend and whether it is software, e.g. `google swiftshader (browser, software)`. */
export function adapterTitle(info: AdapterInfo): string {
  return `${adapterLabel(info)} (${info.backend}, ${info.software ? 'software' : 'gpu'})`;
}

/** The panel's HTML. */
export function adapterPanelHtml(device: NeuraDevice): string {
  const i = device.adapterInfo;
  const limits = device.gpu.limits;
  return [
    `<p class="big">${esc(adapterTitle(i))}</p>`,
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
