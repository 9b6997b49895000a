// Layout rules: transposes folded into matmul flags, transpose/reshape chains collapsed, no-op reshapes and
// expands removed, broadcasts left to the consuming elementwise op. Must not fuse compute (fusion.ts does).
// Invariant: every rule keeps the element order of the value it rewrites (checked against the interpreter).

import { sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { addRecorded, broadcastKeeps, nodeRule, sameTypeAs, type TensorRewrite, trw } from './ruleKit.js';

type Flags = { transA: boolean; transB: boolean };

const isSwap = (n: ENode) => n.op === 'transpose' && JSON.stringify((n.data as { perm: number[] }).perm) === '[1,0]';

/** `(matmul (transpose ?a [1,0]) ?b)` → matmul with `transA` flipped (operand `side` 0) or `transB` (1). */
function foldTranspose(side: 0 | 1, name: string) {
  return (egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): Id[] => {
    const flags = node.data as unknown as Flags & Record<string, unknown>;
    const out: Id[] = [];
    for (const t of egraph.eclass(node.children[side]).nodes) {
      if (!isSwap(t)) continue;
      const children = [...node.children];
      children[side] = t.children[0];
      const data = side === 0 ? { ...flags, transA: !flags.transA } : { ...flags, transB: !flags.transB };
      out.push(addRecorded(egraph, { op: node.op, data: data as never, children }, [name]));
    }
    return out;
  };
}

/** `transpose(transpose(x, q), p)` → `transpose(x, q∘p)`, or `x` when the composition is the identity. */
function composeTransposes(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): Id[] {
  const p = (node.data as { perm: number[] }).perm;
  const out: Id[] = [];
  for (const inner of egraph.eclass(node.children[0]).nodes) {
    if (inner.op !== 'transpose') continue;
    const q = (inner.data as { perm: number[] }).perm;
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

/** Ops that broadcast their operands, so an explicit `expand` of an operand is redundant. */
const BROADCASTING = ['add', 'sub', 'mul', 'div'] as const;

/** The layout rule set. */
export const layoutRules: readonly TensorRewrite[] = [
  nodeRule('transpose-into-matmul-a', ['matmul', 'fusedMatmul'], foldTranspose(0, 'transpose-into-matmul-a')),
  nodeRule('transpose-into-matmul-b', ['matmul', 'fusedMatmul'], foldTranspose(1, 'transpose-into-matmul-b')),
  nodeRule('transpose-transpose', ['transpose'], composeTransposes),
  nodeRule('reshape-reshape', ['reshape'], composeReshapes),
  trw('reshape-id', '(reshape ?a)', '?a', sameTypeAs('?a')),
  trw('expand-id', '(expand ?a)', '?a', sameTypeAs('?a')),
  ...BROADCASTING.flatMap((op) => [
    trw(`${op}-expand-b`, `(${op} ?x (expand ?b))`, `(${op} ?x ?b)`, broadcastKeeps('?x', '?b')),
    trw(`${op}-expand-a`, `(${op} (expand ?a) ?y)`, `(${op} ?a ?y)`, broadcastKeeps('?a', '?y')),
  ]),
];
