// The README MLP bundled for a browser as tooling/size/size.mjs bundles it (rolldown, minified), then run for one
// step on the test adapter: the chunks it has evaluated by then must be its initial chunks plus the optimizer's
// on-demand chunk (onDemand.ts), exactly what size.mjs's "first step" column counts, and none of the other lazy
// chunks (the opt-in features of optIn.ts and lazyTools.ts; the attention, conv, indexing and mixed-precision kernel generators).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
// Node resolves the bundle's non-literal `import('webgpu')` from its folder: under runtime-webgpu, which depends on it
const out = join(root, 'packages/runtime-webgpu/.cache/readme-mlp-chunks');
afterAll(() => rmSync(out, { recursive: true, force: true })); // lint's dependency check would read the chunks

/** The global the bundle's chunks append their names to as they are evaluated. */
const traced = globalThis as { __neuraChunks?: string[] };

it('has loaded its initial chunks and the optimizer chunk by the end of its first step, and no other chunk', async () => {
  const bundle = await rolldown({
    input: join(root, 'packages/nn/test/size/readmeMlp.ts'),
    platform: 'browser',
    resolve: { conditionNames: ['@neura/source', 'import', 'default'] },
    logLevel: 'silent',
    // each chunk records its name when evaluated (its imports are evaluated before it)
    plugins: [{ name: 'trace-chunks', renderChunk: (code, chunk) => `(globalThis.__neuraChunks ??= []).push(${JSON.stringify(chunk.name)});\n${code}` }],
  });
  const { output } = await bundle.write({ dir: out, format: 'esm', minify: true });
  await bundle.close();
  const chunks = output.flatMap((c) => (c.type === 'chunk' ? [c] : []));
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const expected = new Set<string>();
  const visit = (file: string) => {
    if (expected.has(file)) return;
    expected.add(file);
    for (const i of byFile.get(file)?.imports ?? []) visit(i);
  };
  for (const c of chunks) if (c.isEntry || Object.keys(c.modules).includes(join(root, 'packages/nn/src/onDemand.ts'))) visit(c.fileName);
  expect(chunks.length).toBeGreaterThan(expected.size); // there are lazy chunks it must not load

  traced.__neuraChunks = [];
  const entry = chunks.find((c) => c.isEntry);
  const { readmeMlp } = (await import(pathToFileURL(join(out, entry?.fileName ?? '')).href)) as { readmeMlp: (x: Float32Array, y: Int32Array) => Promise<void> };
  await readmeMlp(
    Float32Array.from({ length: 32 * 784 }, (_, i) => Math.sin(i) * 0.5),
    Int32Array.from({ length: 32 }, (_, i) => i % 10),
  );
  const loaded = [...(traced.__neuraChunks ?? [])].sort();
  expect(loaded).toEqual([...expected].map((f) => byFile.get(f)?.name).sort());
}, 120_000);
