// Two projects: `unit` (Node, no GPU, threads) and `gpu` (real WebGPU through Dawn; forks, since a native
// addon inside worker threads can misbehave — CONTRIBUTING.md, platform notes). Tests import packages from source
// through the `@neura/source` export condition (an alias below), so they never wait for a build.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `@neura/<pkg>` resolves to `<pkg>/src/index.ts` and `@neura/nn/<sub>` to `nn/src/<sub>.ts` (the `@neura/source`
// condition, spelled as an alias so it also holds in vitest's server-side resolution).
const resolve = {
  alias: [
    { find: /^@neura\/nn\/(node|onnx|tokenizer|worker|gguf)$/, replacement: fileURLToPath(new URL('./packages/nn/src/$1.ts', import.meta.url)) },
    {
      find: /^@neura\/(ir|egraph|autograd|optim|wgsl-kernels|runtime-webgpu|nn)$/,
      replacement: fileURLToPath(new URL('./packages/$1/src/index.ts', import.meta.url)),
    },
  ],
};

export default defineConfig({
  resolve,
  test: {
    setupFiles: ['tooling/test/setup.ts'],
    projects: [
      {
        resolve,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
          exclude: ['**/*.gpu.test.ts', '**/node_modules/**'],
          setupFiles: ['tooling/test/setup.ts'],
          // e-graph runs over real step graphs take seconds on a loaded 2-core machine (5 s timed out in CI here)
          testTimeout: 60_000,
        },
      },
      {
        resolve,
        test: {
          name: 'gpu',
          include: ['packages/*/src/**/*.gpu.test.ts', 'packages/*/test/**/*.gpu.test.ts', 'apps/*/src/**/*.gpu.test.ts', 'apps/*/test/**/*.gpu.test.ts'],
          setupFiles: ['tooling/test/setup.ts'],
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
