// `@neura/nn/worker` is what a page imports to train in a worker: it must bundle for browsers (no `node:` import)
// and stay small — the page side must not pull in the compiler, the e-graph or the WebGPU runtime.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../src/worker.ts', import.meta.url));

describe('@neura/nn/worker in a browser bundle', () => {
  it('bundles with no node builtins, and without the compiler or the runtime', async () => {
    const out = await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent', conditions: ['@neura/source'], metafile: true });
    const js = out.outputFiles[0].text;
    expect(js).not.toMatch(/from ["']node:|import\(["']node:/);
    const sources = Object.keys(out.metafile.inputs);
    expect(sources.filter((f) => /packages\/(egraph|autograd|optim|runtime-webgpu|wgsl-kernels)\//.test(f))).toEqual([]);
    expect(sources.some((f) => f.endsWith('compileTraining.ts'))).toBe(false);
    expect(js.length).toBeLessThan(120_000);
  });
});
