// Casts through layout: a float cast of a transpose or reshape equals the transpose or reshape of the cast
// (`cast-layout`), and the other way round (`layout-cast`). Autocast's casts (f16 ↔ f32 around attention, in the
// backward too) then leave the head-split transposes where the attention layout rules look for them, and a cast that
// autocast put before a reshape (the attention output cast to f16, then merged back to [rows, width]) is seen by the
// matmul that reads the reshape, which folds it (`matmul-round-operand`). Exact: a cast is elementwise.
// Must not choose: each form is an alternative with a cost, extraction decides.

import { isFloat } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs } from '../tensorLanguage.js';
import { addRecorded, classHasOp, nodeRule, type TensorRewrite } from './ruleKit.js';

const MOVES = ['transpose', 'reshape'] as const;

/** For a float → float cast of a class holding a transpose or reshape: that op over the cast of its operand. */
function castThroughLayout(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const to = enodeAttrs(node, 'cast').to;
  const src = egraph.eclass(node.children[0]);
  if (!isFloat(to) || !isFloat(src.data.dtype)) return [];
  const out: Id[] = [];
  for (const inner of src.nodes) {
    const op = MOVES.find((m) => m === inner.op);
    if (!op) continue;
    const cast = addRecorded(egraph, { op: 'cast', data: { to }, children: [inner.children[0]] }, [`cast-${op}`]);
    out.push(addRecorded(egraph, { op, data: inner.data, children: [cast] }, [`cast-${op}`]));
  }
  return out.filter((id) => egraph.find(id) !== egraph.find(eclass));
}

/** For a transpose or reshape of a class holding a float → float cast: the cast of that op over the cast's operand. */
function layoutThroughCast(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const out: Id[] = [];
  for (const inner of egraph.eclass(node.children[0]).nodes) {
    if (inner.op !== 'cast') continue;
    const to = enodeAttrs(inner, 'cast').to;
    if (!isFloat(to) || !isFloat(egraph.eclass(inner.children[0]).data.dtype)) continue;
    const moved = addRecorded(egraph, { op: node.op, data: node.data, children: [inner.children[0]] }, ['layout-cast']);
    out.push(addRecorded(egraph, { op: 'cast', data: { to }, children: [moved] }, ['layout-cast']));
  }
  return out.filter((id) => egraph.find(id) !== egraph.find(eclass));
}

/** The cast-through-layout rules (both directions: the classes they join are finite, so saturation ends). */
export const castLayoutRules: readonly TensorRewrite[] = [
  nodeRule('cast-layout', ['cast'], castThroughLayout),
  nodeRule('layout-cast', [...MOVES], layoutThroughCast, { guard: (egraph, _e, n) => classHasOp(egraph, n.children[0], 'cast') }),
];
