// Tests of the broadcast helpers the type rules use: `broadcastTypes` is `broadcastShapes` over operand types,
// and an operand list broadcasts with a target shape to that shape exactly when each operand broadcasts to it
// (what `pointwiseReduce`'s type rule checks one operand at a time).
import { describe, expect, it } from 'vitest';
import { broadcastShapes, broadcastsTo, broadcastTypes, type Shape } from './shape.js';

// every shape of rank 0 to 2 over the extents 0, 1, 2 and 3
const EXTENTS = [0, 1, 2, 3];
const SHAPES: Shape[] = [[], ...EXTENTS.map((d) => [d]), ...EXTENTS.flatMap((a) => EXTENTS.map((b) => [a, b]))];
const typed = (shapes: readonly Shape[]) => shapes.map((shape) => ({ shape }));

/** numpy's rule, axis by axis from the right: extents equal or 1, the result the extent that is not 1. */
function numpyBroadcast(...shapes: Shape[]): number[] | undefined {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    let d = 1;
    for (const s of shapes) {
      const e = s[s.length - rank + i] ?? 1;
      if (e === 1) continue;
      if (d !== 1 && d !== e) return undefined;
      d = e;
    }
    out.push(d);
  }
  return out;
}

describe('broadcastTypes', () => {
  it('broadcasts operand types as broadcastShapes broadcasts their shapes, for every pair and triple of small shapes', () => {
    for (const a of SHAPES) {
      expect(broadcastTypes(typed([a]))).toEqual(broadcastShapes(a));
      for (const b of SHAPES) {
        expect(broadcastTypes(typed([a, b]))).toEqual(broadcastShapes(a, b));
        expect(broadcastTypes(typed([b, a]))).toEqual(broadcastShapes(b, a));
        for (const c of SHAPES) {
          expect(broadcastShapes(a, b, c)).toEqual(numpyBroadcast(a, b, c));
          expect(broadcastTypes(typed([a, b, c]))).toEqual(broadcastShapes(a, b, c));
        }
      }
    }
    expect(broadcastTypes([])).toEqual([]);
  });

  it('finds operands broadcasting with a target to the target exactly when each broadcasts to it', () => {
    for (const target of SHAPES) {
      for (const a of SHAPES) {
        for (const b of SHAPES) {
          const joint = broadcastShapes(a, b, target);
          const same = joint !== undefined && joint.length === target.length && joint.every((d, i) => d === target[i]);
          expect(broadcastsTo(a, target) && broadcastsTo(b, target)).toBe(same);
        }
      }
    }
  });
});
