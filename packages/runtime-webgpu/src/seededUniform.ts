// Deterministic pseudo-random inputs (a linear congruential generator): the autotuner's check inputs, and the same
// values in GPU tests and benches, so a figure or a failure can be reproduced from its seed.

/** `n` floats in [-1, 1) from `seed`. */
export function seededUniform(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 2 - 1;
  }
  return out;
}
