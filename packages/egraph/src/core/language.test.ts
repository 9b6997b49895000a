import { describe, expect, it } from 'vitest';
import { DATA_KEY, dataKey, dataMatches, enode, mapChildren, nodeKey } from './language.js';
import { EGraph } from './eGraph.js';
import { parseTerm, termToRecExpr, termToString } from './recExpr.js';
import { mathLanguage } from './testing/math.js';

describe('language', () => {
  it('keys data canonically: object key order and undefined fields do not matter', () => {
    expect(dataKey({ b: 1, a: [true, null], c: undefined })).toBe(dataKey({ a: [true, null], b: 1 }));
    expect(nodeKey(enode('f', [1, 2], { x: 1 }))).not.toBe(nodeKey(enode('f', [2, 1], { x: 1 })));
    expect(nodeKey(enode('f', [], 1))).not.toBe(nodeKey(enode('f', [], '1')));
  });

  it('matches object data as a subset and other data exactly', () => {
    expect(dataMatches({ transA: true }, { transA: true, transB: false })).toBe(true);
    expect(dataMatches({ transA: true }, { transA: false })).toBe(false);
    expect(dataMatches(undefined, { anything: 1 })).toBe(true);
    expect(dataMatches(2, 2)).toBe(true);
    expect(dataMatches(2, 3)).toBe(false);
    expect(dataMatches({ a: 1 }, 1)).toBe(false);
  });

  it('returns the same node object when mapping children changes nothing', () => {
    const n = enode('f', [1, 2]);
    expect(mapChildren(n, (c) => c)).toBe(n);
    expect(mapChildren(n, (c) => c + 1).children).toEqual([2, 3]);
  });

  it('round-trips terms with attributes and language leaves through text', () => {
    const src = '(add (scale[by=2.5,tag="s"] x) 3)';
    const t = parseTerm(src, mathLanguage);
    expect(t.children[1]).toEqual({ op: 'num', data: 3, children: [] });
    expect(termToString(t, mathLanguage)).toBe(src);
    expect(() => parseTerm('(add ?a 1)')).toThrow(/variable \?a is not allowed/);
  });

  it("reads a data object's own key (DATA_KEY, invisible to spreads and JSON) before computing one", () => {
    class Keyed {
      readonly expr: string;
      readonly #key: string;
      constructor(expr: string) {
        this.expr = expr;
        this.#key = `k:${expr}`;
      }
      get [DATA_KEY](): string {
        return this.#key;
      }
    }
    const a = new Keyed('x') as unknown as { expr: string };
    expect(dataKey(a)).toBe('k:x');
    expect(dataKey([a])).toBe('[k:x]');
    expect(dataKey({ ...a })).toBe('{"expr":"x"}');
    // equal keys hash-cons to one node; the node keeps the first data object
    const eg = new EGraph();
    const id = eg.add(enode('f', [], a));
    expect(eg.add(enode('f', [], new Keyed('x') as unknown as { expr: string }))).toBe(id);
    expect(eg.add(enode('f', [], new Keyed('y') as unknown as { expr: string }))).not.toBe(id);
  });

  it('shares equal subterms when flattening a term', () => {
    expect(termToRecExpr(parseTerm('(f (g x) (g x))'))).toHaveLength(3);
  });
});
