// Casts through layout: a float cast of a transpose or reshape equals the transpose or reshape of the cast
// (`cast-transpose`, `cast-reshape`). Autocast's casts (f16 ↔ f32 around attention, in the backward too) then
// leave the head-split transposes where the attention layout rules look for them. Exact: a cast is elementwise.
// Must not choose: each form is an alternative with a cost, extraction decides.

import { isFloat } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs } from '../tensorLanguage.js';
import { addRecorded, nodeRule, type TensorRewrite } from './ruleKit.js';

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

/** The cast-through-layout rules. */
export const castLayoutRules: readonly TensorRewrite[] = [nodeRule('cast-layout', ['cast'], castThroughLayout)];
