// Shared test matchers: `toBeAllclose(expected, { rtol, atol })` compares numeric arrays elementwise and
// reports the worst element, so a failing kernel or gradient test says where and by how much.
import { expect } from 'vitest';

type Numeric = ArrayLike<number> | number;

function flat(x: Numeric): number[] {
  return typeof x === 'number' ? [x] : Array.from(x);
}

expect.extend({
  toBeAllclose(received: Numeric, expected: Numeric, opts: { rtol?: number; atol?: number } = {}) {
    const rtol = opts.rtol ?? 1e-5;
    const atol = opts.atol ?? 1e-6;
    const a = flat(received);
    const b = flat(expected);
    if (a.length !== b.length) {
      return { pass: false, message: () => `length ${a.length} differs from expected length ${b.length}` };
    }
    let worst = -1;
    let worstExcess = 0;
    for (let i = 0; i < a.length; i++) {
      const err = Math.abs(a[i] - b[i]);
      const tol = atol + rtol * Math.abs(b[i]);
      const bad = !(err <= tol); // NaN counts as bad
      if (bad && (worst < 0 || !(err - tol <= worstExcess))) {
        worst = i;
        worstExcess = err - tol;
      }
    }
    const pass = worst < 0;
    return {
      pass,
      message: () =>
        pass
          ? `expected arrays not to be allclose (rtol ${rtol}, atol ${atol})`
          : `arrays differ at index ${worst}: got ${a[worst]}, expected ${b[worst]} (rtol ${rtol}, atol ${atol}, ${a.length} elements)`,
    };
  },
});

interface AllcloseMatchers<R = unknown> {
  toBeAllclose(expected: Numeric, opts?: { rtol?: number; atol?: number }): R;
}

declare module 'vitest' {
  interface Assertion<T = any> extends AllcloseMatchers<T> {}
  interface AsymmetricMatchersContaining extends AllcloseMatchers {}
}
