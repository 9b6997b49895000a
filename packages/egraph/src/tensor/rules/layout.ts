// Layout rules: transposes folded into matmul flags, transpose/reshape chains collapsed, no-op reshapes and
// expands removed, broadcasts left to the consuming elementwise op. Must not fuse compute (fusion.ts does).
// Invariant: every rule keeps the element order of the value it rewrites (checked against the interpreter).

import { sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs } from '../tensorLanguage.js';
import { addRecorded, broadcastKeeps, nodeRule, sameTypeAs, type TensorRewrite, trw } from './ruleKit.js';

const isSwap = (n: ENode) => n.op === 'transpose' && JSON.stringify(enodeAttrs(n, 'transpose').perm) === '[1,0]';

/** `(matmul (transpose ?a [1,0]) ?b)` → matmul with `transA` flipped (operand `side` 0) or `transB` (1). */
function foldTranspose(side: 0 | 1, name: string) {
  return (egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): Id[] => {
    const flags = enodeAttrs(node, 'matmul', 'fusedMatmul');
    const out: Id[] = [];
    for (const t of egraph.eclass(node.children[side]).nodes) {
      if (!isSwap(t)) continue;
      const children = [...node.children];
      children[side] = t.children[0];
      const data = side === 0 ? { ...flags, transA: !flags.transA } : { ...flags, transB: !flags.transB };
      out.push(addRecorded(egraph, { op: node.op, data, children }, [name]));
    }
    return out;
  };
}

/** `transpose(transpose(x, q), p)` → `transpose(x, q∘p)`, or `x` when the composition is the identity. */
function composeTransposes(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): Id[] {
  const p = enodeAttrs(node, 'transpose').perm;
  const out: Id[] = [];
  for (const inner of egraph.eclass(node.children[0]).nodes) {
    if (inner.op !== 'transpose') continue;
    const q = enodeAttrs(inner, 'transpose').perm;
    const perm = p.map((i) => q[i]);
    const x = inner.children[0];
    out.push(perm.every((v, i) => v === i) ? x : egraph.add({ op: 'transpose', data: { perm }, children: [x] }));
  }
  return out;
}

/** `reshape(reshape(x))` → one reshape of x (or x itself when the shapes agree). */
function composeReshapes(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const shape = egraph.eclass(eclass).data.shape;
  const out: Id[] = [];
  for (const inner of egraph.eclass(node.children[0]).nodes) {
    if (inner.op !== 'reshape') continue;
    const x = inner.children[0];
    out.push(sameShape(egraph.eclass(x).data.shape, shape) ? x : egraph.add({ op: 'reshape', data: { shape: [...shape] }, children: [x] }));
  }
  return out;
}

/** The one axis a zero pad extends (and the interval its operand lands in), or undefined. */
function padSpan(n: ENode, outShape: readonly number[]): { axis: number; start: number; end: number } | undefined {
  const a = enodeAttrs(n, 'pad');
  if (a.value !== 0 || a.interior.some((v) => v !== 0) || a.before.some((v) => v < 0) || a.after.some((v) => v < 0)) return undefined;
  const axes = a.before.map((b, i) => (b !== 0 || a.after[i] !== 0 ? i : -1)).filter((i) => i >= 0);
  if (axes.length !== 1) return undefined;
  const d = axes[0];
  return { axis: d, start: a.before[d], end: outShape[d] - a.after[d] };
}

/**
 * `add(pad(a), pad(b))` of zero pads along one axis where a's and b's intervals touch → `pad(concat(a, b))` (or the
 * concat alone when it covers the axis): the gradient of a slice-split tensor (Q, K, V from one projection) is
 * summed from padded parts, three pads and an add; a concat writes it once.
 */
function padsToConcat(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const out: Id[] = [];
  const shape = egraph.eclass(eclass).data.shape;
  const [c0, c1] = node.children;
  if (!sameShape(egraph.eclass(c0).data.shape, shape) || !sameShape(egraph.eclass(c1).data.shape, shape)) return out;
  for (const p of egraph.eclass(c0).nodes) {
    if (p.op !== 'pad') continue;
    const sp = padSpan(p, shape);
    if (!sp) continue;
    for (const q of egraph.eclass(c1).nodes) {
      if (q.op !== 'pad') continue;
      const sq = padSpan(q, shape);
      if (!sq || sq.axis !== sp.axis) continue;
      const [first, second] = sp.end === sq.start ? [[p, sp], [q, sq]] as const : sq.end === sp.start ? [[q, sq], [p, sp]] as const : [undefined, undefined];
      if (!first || !second) continue;
      const d = sp.axis;
      const cat = addRecorded(egraph, { op: 'concat', data: { axis: d }, children: [first[0].children[0], second[0].children[0]] }, ['pad-add-concat']);
      const start = first[1].start;
      const end = second[1].end;
      if (start === 0 && end === shape[d]) {
        out.push(cat);
        continue;
      }
      const zeros = shape.map(() => 0);
      const before = zeros.map((_, i) => (i === d ? start : 0));
      const after = zeros.map((_, i) => (i === d ? shape[d] - end : 0));
      out.push(addRecorded(egraph, { op: 'pad', data: { before, after, interior: zeros, value: 0 }, children: [cat] }, ['pad-add-concat']));
    }
  }
  return out;
}

/** `concat(…, concat(x, y), …)` along the same axis → one concat of all the parts. */
function flattenConcat(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): Id[] {
  const axis = enodeAttrs(node, 'concat').axis;
  const out: Id[] = [];
  node.children.forEach((c, j) => {
    for (const inner of egraph.eclass(c).nodes) {
      if (inner.op !== 'concat' || enodeAttrs(inner, 'concat').axis !== axis) continue;
      const children = [...node.children.slice(0, j), ...inner.children, ...node.children.slice(j + 1)];
      out.push(addRecorded(egraph, { op: 'concat', data: { axis }, children }, ['concat-concat']));
    }
  });
  return out;
}

/** Ops that broadcast their operands, so an explicit `expand` of an operand is redundant. */
const BROADCASTING = ['add', 'sub', 'mul', 'div'] as const;

/** The layout rule set. */
export const layoutRules: readonly TensorRewrite[] = [
  nodeRule('transpose-into-matmul-a', ['matmul', 'fusedMatmul'], foldTranspose(0, 'transpose-into-matmul-a')),
  nodeRule('transpose-into-matmul-b', ['matmul', 'fusedMatmul'], foldTranspose(1, 'transpose-into-matmul-b')),
  nodeRule('transpose-transpose', ['transpose'], composeTransposes),
  nodeRule('reshape-reshape', ['reshape'], composeReshapes),
  nodeRule('pad-add-concat', ['add'], padsToConcat, { guard: (eg, _e, n) => n.children.every((c) => eg.eclass(c).nodes.some((m) => m.op === 'pad')) }),
  nodeRule('concat-concat', ['concat'], flattenConcat),
  trw('reshape-id', '(reshape ?a)', '?a', sameTypeAs('?a')),
  trw('expand-id', '(expand ?a)', '?a', sameTypeAs('?a')),
  ...BROADCASTING.flatMap((op) => [
    trw(`${op}-expand-b`, `(${op} ?x (expand ?b))`, `(${op} ?x ?b)`, broadcastKeeps('?x', '?b')),
    trw(`${op}-expand-a`, `(${op} (expand ?a) ?y)`, `(${op} ?a ?y)`, broadcastKeeps('?a', '?y')),
  ]),
];
