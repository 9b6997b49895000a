// The ONNX importer lives behind its own subpath (`@neura/nn/onnx`): it bundles for browsers (no `node:` import),
// and its protobuf runtime stays out of the main entry's bundle.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = (f: string) => fileURLToPath(new URL(`../src/${f}`, import.meta.url));
const bundle = async (f: string) =>
  (await build({ entryPoints: [entry(f)], bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent', conditions: ['@neura/source'] })).outputFiles[0].text;

describe('@neura/nn/onnx in a browser bundle', () => {
  it('bundles the onnx subpath with no node builtins', async () => {
    const js = await bundle('onnx.ts');
    expect(js).not.toMatch(/from ["']node:|import\(["']node:/);
    expect(js).toContain('ModelProto');
  });

  it('keeps protobuf out of the main entry', async () => {
    expect(await bundle('index.ts')).not.toContain('ModelProto');
  });
});
