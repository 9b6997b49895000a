// @neura/nn must bundle for browsers as is: esbuild with --platform=browser and no externals, from source (the
// `@neura/source` condition). A `node:` import in the main entry (or anything it reaches) fails here; Node-only
// helpers belong behind `@neura/nn/node`, which must NOT bundle for browsers. `@neura/nn/tokenizer` bundles on its
// own (it carries @huggingface/tokenizers and @huggingface/jinja, kept out of the main entry).
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = (f: string) => fileURLToPath(new URL(`../src/${f}`, import.meta.url));
const bundle = (f: string) =>
  build({ entryPoints: [entry(f)], bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent', conditions: ['@neura/source'] });

describe('@neura/nn in a browser bundle', () => {
  it('bundles the main entry with no node builtins and no webgpu package', async () => {
    const out = await bundle('index.ts');
    const js = out.outputFiles[0].text;
    expect(js.length).toBeGreaterThan(10_000);
    expect(js).not.toMatch(/from ["']node:|import\(["']node:/);
    expect(js).toContain('compileTraining');
    // the Hugging Face tokenizer and jinja live behind @neura/nn/tokenizer, not in the core bundle
    expect(js).not.toContain('Unknown TokenizerModel type');
    expect(js).not.toContain('raise_exception');
  });

  it('bundles the tokenizer subpath for browsers too, at its own size', async () => {
    const out = await bundle('tokenizer.ts');
    const js = out.outputFiles[0].text;
    expect(js).not.toMatch(/from ["']node:|import\(["']node:/);
    expect(js).toContain('Unknown TokenizerModel type');
    expect(js.length).toBeLessThan(400_000); // ~100 KB tokenizers + ~120 KB jinja + ours, unminified
  });

  it('keeps the Node-only loaders out of it (the node subpath does not bundle for browsers)', async () => {
    await expect(bundle('node.ts')).rejects.toThrow(/node:fs\/promises/);
  });
});
