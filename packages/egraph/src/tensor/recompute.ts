// Recompute versus store (issue 11): a reader of a big forward value may read a recomputation of it instead —
// `reader(…, m(after(c0, dep), c1, …), …)`, where m is a node of the value's class and dep another operand of the
// reader, so the recomputation runs once dep exists (in the backward) and the stored value dies at its last forward
// reader. Both spellings are one value: the rule adds the reader's alternative to the reader's class. Must not run
// without `optimize({ memoryBudget })` (plans and optimize time then stay exactly as they were); the choice of which
// recomputations to take is `fitMemoryBudget` (memoryFit.ts), by ir's memory estimate.

import { isAliasOp, isLeafOp, OP_FACTS } from '@neura/ir';
import type { EGraph, ENode, Id } from '../core/index.js';
import { addRecorded, nodeRule, type TensorRewrite } from './rules/ruleKit.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { irENode, isOpKind } from './tensorLanguage.js';

/** The rule's name (its nodes are recorded with it). */
export const RECOMPUTE_RULE = 'recompute-after';

/** Matmuls a recomputation may run (one result each); the cost model weighs their flops against the bytes freed. */
const RECOMPUTED_MATMULS: ReadonlySet<string> = new Set(['matmul', 'fusedMatmul', 'matmulEpilogue']);

/** Whether a node may be recomputed: a kernel of one result, elementwise, a row kernel or a matmul (no attention, no randomness). */
export function isRecomputable(n: ENode): boolean {
  if (!isOpKind(n.op) || n.op === 'dropout' || isLeafOp(n.op) || isAliasOp(n.op)) return false;
  const family = OP_FACTS[n.op].family;
  return family === 'unary' || family === 'binary' || (family === 'elementwise' && n.op !== 'pointwiseMulti' && n.op !== 'pointwiseMultiTensor') || n.op === 'rowwise' || RECOMPUTED_MATMULS.has(n.op);
}

/** Whether a class holds a node that reads through `after` (a recomputation already). */
function readsAfter(egraph: EGraph<TensorInfo>, cls: Id): boolean {
  return egraph.eclass(cls).nodes.some((m) => m.children.some((c) => egraph.eclass(c).nodes.some((x) => x.op === 'after')));
}

/**
 * Adds `reader` with operands `ys` replaced by `m` (a node of y's class; through `view`, a reshape of it, when the
 * reader reads one) recomputed after operand `dep`; returns the new reader's class (the caller unions it with the
 * reader's) and the classes of the `after`, of the recomputation and of the operand the new reader reads.
 */
export function offerRecompute(egraph: EGraph<TensorInfo>, reader: ENode, ys: readonly number[], m: ENode, dep: number, view?: ENode): { reader: Id; after: Id; value: Id; operand: Id } {
  const after = addRecorded(egraph, irENode('after', {}, [m.children[0], reader.children[dep]]), [RECOMPUTE_RULE]);
  const value = addRecorded(egraph, { op: m.op, data: m.data, children: [after, ...m.children.slice(1)] }, [RECOMPUTE_RULE]);
  const operand = view ? addRecorded(egraph, { op: view.op, data: view.data, children: [value] }, [RECOMPUTE_RULE]) : value;
  const children = reader.children.map((c, i) => (ys.includes(i) ? operand : c));
  return { reader: addRecorded(egraph, { op: reader.op, data: reader.data, children }, [RECOMPUTE_RULE]), after, value, operand };
}

/** Whether a class is a computed value (not a leaf or a constant): an ordering operand must be one. */
function isComputed(egraph: EGraph<TensorInfo>, cls: Id): boolean {
  const c = egraph.eclass(cls);
  return c.data.constant === undefined && !c.nodes.some((n) => isOpKind(n.op) && isLeafOp(n.op));
}

/**
 * The rule on its own (soundness samples, `ruleSets: ['recompute']`): every operand of a kernel whose class holds
 * a recomputable node gets the alternative, after every other computed operand. Under a budget `optimize` does
 * not saturate with it (every edge of the step would double): `fitMemoryBudget` offers it edge by edge.
 */
function recomputeOperands(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  if (node.op === 'after' || node.children.some((c) => readsAfter(egraph, c))) return [];
  const out: Id[] = [];
  node.children.forEach((yc, y) => {
    const m = egraph.eclass(yc).nodes.find((x) => isRecomputable(x) && x.children.length > 0 && !x.children.some((c) => egraph.eclass(c).nodes.some((z) => z.op === 'after')));
    if (!m) return;
    node.children.forEach((dc, d) => {
      if (d !== y && egraph.find(dc) !== egraph.find(yc) && isComputed(egraph, dc)) out.push(offerRecompute(egraph, node, [y], m, d).reader);
    });
  });
  return out.filter((id) => egraph.find(id) !== egraph.find(eclass));
}

const READERS = ['matmul', 'fusedMatmul', 'matmulEpilogue', 'pointwise', 'rowwise', 'mul', 'add', 'sub', 'div'];

/** The recompute rule set (not in the default passes). */
export const recomputeRules: readonly TensorRewrite[] = [nodeRule(RECOMPUTE_RULE, READERS, recomputeOperands)];
