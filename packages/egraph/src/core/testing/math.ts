// A small arithmetic language for tests and benchmarks of the core, in the style of egg's `math` example:
// numbers are `num` nodes with the value as data, symbols are leaves named by themselves. Not part of the
// core's domain-free API; it is a user of it. Invariant: `constantFolding` only folds exact results.
import type { Analysis } from '../eGraph.js';
import { EGraphStateError } from '../errors.js';
import { EGraph } from '../eGraph.js';
import type { ENode, Id, Language } from '../language.js';
import type { Rewrite } from '../rewrite.js';
import { birw, rw } from '../rewrite.js';

/** Arithmetic leaves: numeric tokens become `num` nodes carrying the number, other tokens are symbols. */
export const mathLanguage: Language = {
  parseLeaf(token) {
    const n = Number(token);
    return Number.isFinite(n) && token.trim() !== '' ? { op: 'num', data: n } : { op: token };
  },
  formatLeaf(node) {
    return node.op === 'num' && typeof node.data === 'number' ? String(node.data) : undefined;
  },
};

/** Class data of the constant-folding analysis: the class's value when it is a known constant. */
export type ConstData = number | undefined;

/** The value a `num` node carries as its data. */
function numOf(node: ENode): number | undefined {
  return typeof node.data === 'number' ? node.data : undefined;
}

function fold(egraph: EGraph<ConstData>, node: ENode): ConstData {
  if (node.op === 'num') return numOf(node);
  const [a, b] = node.children.map((c) => egraph.eclass(c).data);
  if (a === undefined || b === undefined) return undefined;
  switch (node.op) {
    case 'add':
      return a + b;
    case 'mul':
      return a * b;
    case 'sub':
      return a - b;
    default:
      return undefined;
  }
}

/** egg's constant-folding analysis: computes constants and adds the `num` node to their class. */
export const constantFolding: Analysis<ConstData> = {
  make: fold,
  merge(a, b) {
    if (a === undefined) return b;
    if (b !== undefined && a !== b) throw new EGraphStateError(`constant folding: merging classes valued ${a} and ${b} (an unsound rule)`);
    return a;
  },
  modify(egraph, id) {
    const v = egraph.eclass(id).data;
    if (v === undefined) return;
    const num = egraph.add({ op: 'num', data: v, children: [] });
    egraph.union(id, num);
  },
};

/** A fresh e-graph with constant folding. */
export function mathEGraph(): EGraph<ConstData> {
  return new EGraph(constantFolding);
}

/** Reads the constant value bound to a variable, for rule conditions. */
export function constOf(egraph: EGraph<ConstData>, id: Id): ConstData {
  return egraph.eclass(id).data;
}

const o = { language: mathLanguage };

/** The ring rules: commutativity, associativity, identities, distributivity (works with any analysis). */
export function mathRules<D = unknown>(): Rewrite<D>[] {
  return [
    rw<D>('comm-add', '(add ?a ?b)', '(add ?b ?a)', o),
    rw<D>('comm-mul', '(mul ?a ?b)', '(mul ?b ?a)', o),
    rw<D>('assoc-add', '(add ?a (add ?b ?c))', '(add (add ?a ?b) ?c)', o),
    rw<D>('assoc-mul', '(mul ?a (mul ?b ?c))', '(mul (mul ?a ?b) ?c)', o),
    rw<D>('add-zero', '(add ?a 0)', '?a', o),
    rw<D>('mul-one', '(mul ?a 1)', '?a', o),
    rw<D>('mul-zero', '(mul ?a 0)', '0', o),
    rw<D>('sub-canon', '(sub ?a ?b)', '(add ?a (mul -1 ?b))', o),
    ...birw<D>('distribute', '(mul ?a (add ?b ?c))', '(add (mul ?a ?b) (mul ?a ?c))', o),
  ];
}

/** The value of a `num` node in the class, if any (no analysis needed). */
export function numValue<D>(egraph: EGraph<D>, id: Id): number | undefined {
  for (const n of egraph.eclass(id).nodes) if (n.op === 'num') return numOf(n);
  return undefined;
}

function folder<D>(name: string, op: string, f: (a: number, b: number) => number): Rewrite<D> {
  return rw<D>(name, `(${op} ?a ?b)`, (egraph, _id, s) => {
    const a = numValue(egraph, s.get('a'));
    const b = numValue(egraph, s.get('b'));
    if (a === undefined || b === undefined) return undefined;
    return egraph.add({ op: 'num', data: f(a, b), children: [] });
  });
}

/** Constant folding as custom appliers (for e-graphs without the analysis). */
export function foldRules<D = unknown>(): Rewrite<D>[] {
  return [folder<D>('fold-add', 'add', (a, b) => a + b), folder<D>('fold-mul', 'mul', (a, b) => a * b)];
}
