import { factsOf, FUSED_OPS } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { ABSORBING_OPS } from './kernelBoundaries.js';

describe('kernel boundaries', () => {
  it('know what every fused op absorbs (a fused op missing here would hide a registered kernel)', () => {
    const known = new Set<string>(ABSORBING_OPS);
    // a pick or an alias (`after`) runs no kernel of its own: it cannot hide one
    expect(FUSED_OPS.filter((op) => !factsOf(op).resultOfOperand && !factsOf(op).alias && !known.has(op))).toEqual([]);
  });
});
