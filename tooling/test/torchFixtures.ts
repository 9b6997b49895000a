// Test helper: the PyTorch fixtures that tooling/fixtures/torch_fixtures.py writes (float64 values as JSON),
// read once per test file: the file's path, its tensors decoded to interpreter values, and the cases of one
// owner. Shared by autograd's and nn's fixture tests; an absent file gives no cases (the tests skip, saying so).

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DType, TensorValue } from '../../packages/ir/src/index.js';

/** Where the fixtures are (absent until generated where PyTorch exists). */
export const TORCH_FIXTURES_PATH = fileURLToPath(new URL('../fixtures/torch-fixtures.json', import.meta.url));

/** A tensor as the fixture file stores it. */
export interface Encoded {
  shape: number[];
  dtype: 'f32' | 'i32';
  data: number[];
}

/** A stored tensor as an interpreter value (f32 data kept in float64, as the fixtures were computed). */
export function torchValue(e: Encoded): TensorValue {
  return { shape: e.shape, dtype: e.dtype as DType, data: e.dtype === 'f32' ? Float64Array.from(e.data) : Int32Array.from(e.data) };
}

/** The cases of `owner` (undefined: the cases without one), or none when the file is absent. */
export function torchFixtures<F extends { owner?: string }>(owner: string | undefined): F[] {
  if (!existsSync(TORCH_FIXTURES_PATH)) return [];
  return (JSON.parse(readFileSync(TORCH_FIXTURES_PATH, 'utf8')) as { cases: F[] }).cases.filter((c) => c.owner === owner);
}
