// The adapter panel's readable adapter name: what browsers and Dawn report for real adapters (SwiftShader in
// headless Chromium reports its device as the hex id `0xc0de`), shown as vendor and architecture.
import { describe, expect, it } from 'vitest';
import { adapterLabel, adapterTitle } from './adapterPanel.js';

describe('the demo adapter name', () => {
  it('names SwiftShader in Chromium by vendor and architecture, never by its hex device id', () => {
    const chromium = { vendor: 'google', architecture: 'swiftshader', device: '0xc0de', description: '' };
    expect(adapterLabel(chromium)).toBe('google swiftshader');
    expect(adapterTitle({ ...chromium, backend: 'browser', software: true, subgroupMatrixConfigs: [] })).toBe('google swiftshader (browser, software)');
  });

  it('adds the driver description when it says more, and falls back to it without a vendor', () => {
    expect(adapterLabel({ vendor: 'nvidia', architecture: 'hopper', device: '0x2330', description: 'NVIDIA H100 80GB HBM3' })).toBe('nvidia hopper — NVIDIA H100 80GB HBM3');
    expect(adapterLabel({ vendor: 'mesa', architecture: 'llvmpipe', device: '', description: 'llvmpipe' })).toBe('mesa llvmpipe');
    expect(adapterLabel({ vendor: '', architecture: '', device: 'llvmpipe (LLVM 15.0.6, 256 bits)', description: '' })).toBe('llvmpipe (LLVM 15.0.6, 256 bits)');
    expect(adapterLabel({ vendor: '', architecture: '', device: '0x0', description: '' })).toBe('unknown adapter');
  });
});
