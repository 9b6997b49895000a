import { broadcastShapes, type PwExpr, sameShape } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { EGraph } from '../core/index.js';
import { buildPointwise, exprOf } from './pointwiseFusion.js';
import { type TensorInfo, TensorAnalysis } from './tensorAnalysis.js';
import { irENode } from './tensorLanguage.js';

const $ = (index: number): PwExpr => ({ op: 'in', index });
/** `$0 + $1 + … + $(n-1)`. */
const sumOf = (n: number): PwExpr => Array.from({ length: n - 1 }, (_, i) => i + 1).reduce<PwExpr>((e, i) => ({ op: 'add', a: e, b: $(i) }), $(0));

/** An e-graph with one f32 input class per shape. */
function inputsOf(shapes: readonly (readonly number[])[]) {
  const egraph = new EGraph<TensorInfo>(new TensorAnalysis());
  const ids = shapes.map((shape, i) => egraph.add(irENode('input', { name: `x${i}` }, [], { shape: [...shape], dtype: 'f32' })));
  return { egraph, ids };
}

const built = (shapes: readonly (readonly number[])[], out: readonly number[]): boolean => {
  const { egraph, ids } = inputsOf(shapes);
  return buildPointwise(egraph, sumOf(shapes.length), ids, { shape: [...out], dtype: 'f32' }) !== undefined;
};

describe('buildPointwise', () => {
  it("builds a node only when its inputs broadcast to exactly its class's shape", () => {
    expect(built([[4, 1], [1, 3]], [4, 3])).toBe(true);
    expect(built([[3], [4, 3]], [4, 3])).toBe(true);
    expect(built([[], [4, 3]], [4, 3])).toBe(true);
    expect(built([[4, 1], [1, 3]], [4, 4])).toBe(false); // a dimension neither 1 nor the target's
    expect(built([[3], [3]], [4, 3])).toBe(false); // narrower than the class
    expect(built([[4, 1], [4, 1]], [4, 3])).toBe(false); // an axis no input reads at its full size
    expect(built([[2, 3], [4, 3]], [4, 3])).toBe(false);
    expect(built([[0, 3], [1, 3]], [0, 3])).toBe(true);
    expect(built([[0, 3], [5, 3]], [5, 3])).toBe(false);
  });

  it('agrees with broadcastShapes on every pair and triple of small shapes', () => {
    const shapes: number[][] = [[]];
    for (const rank of [1, 2]) for (let code = 0; code < 3 ** rank; code++) shapes.push(Array.from({ length: rank }, (_, i) => [1, 2, 3][Math.floor(code / 3 ** i) % 3]));
    const targets = shapes.filter((s) => s.length > 0);
    let checked = 0;
    for (const a of shapes) {
      for (const b of shapes) {
        for (const c of [undefined, ...shapes.slice(0, 6)]) {
          const ins = c ? [a, b, c] : [a, b];
          for (const out of targets) {
            const s = broadcastShapes(...ins);
            expect(built(ins, out), `${JSON.stringify(ins)} → ${JSON.stringify(out)}`).toBe(s !== undefined && sameShape(s, out));
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('shares the data of the node whose expression it rebuilds over other inputs, if that data is keyed', () => {
    const { egraph, ids } = inputsOf([[4, 3], [4, 3], [4, 3]]);
    const out: TensorInfo = { shape: [4, 3], dtype: 'f32' };
    const like = buildPointwise(egraph, sumOf(2), ids.slice(0, 2), out) as NonNullable<ReturnType<typeof buildPointwise>>;
    const rebuilt = buildPointwise(egraph, exprOf(like), [ids[0], ids[2]], out, like);
    expect(rebuilt?.data).toBe(like.data);
    expect(rebuilt?.children).toEqual([ids[0], ids[2]]);
    // a record written by hand keys by its JSON text: the rebuilt node gets data of its own, as the rules build it
    const byHand = { op: 'pointwise', data: { expr: JSON.stringify(exprOf(like)), dtype: 'f32' }, children: ids.slice(0, 2) };
    const fresh = buildPointwise(egraph, exprOf(byHand), [ids[0], ids[2]], out, byHand);
    expect(fresh?.data).not.toBe(byHand.data);
    expect(fresh?.data).toStrictEqual(rebuilt?.data);
  });
});
