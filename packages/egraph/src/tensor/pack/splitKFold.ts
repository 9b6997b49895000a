// Updates reading split-K partials (a `pointwiseMultiTensor` with `partials`, offered by rules/splitKFold.ts): the
// weight gradients' split-K products summed by the update instead of by their own reduction. Taken after
// extraction, every result of every folded chunk at once: one pick alone needs the partials while the other results
// still need the reduced gradients, so no one-class move of the extractor takes them.

import { dagCost, type ENode, type Id } from '../../core/index.js';
import type { EGraph } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs } from '../tensorLanguage.js';
import { type PackState, type Packer, picksOf } from './packer.js';

/** Each class holding a multi-tensor update that reads split-K partials, with that node. */
export function foldedUpdates(egraph: EGraph<TensorInfo>): [Id, ENode][] {
  const out: [Id, ENode][] = [];
  for (const id of new Set(egraph.classesWithOp('pointwiseMultiTensor').map((i) => egraph.find(i)))) {
    const f = egraph.eclass(id).nodes.find((x) => x.op === 'pointwiseMultiTensor' && enodeAttrs(x, 'pointwiseMultiTensor').partials);
    if (f) out.push([id, f]);
  }
  return out;
}

/** The plan `choice` with `f` (the update in class `M`) taking all its results and the partials it reads. */
function withFold(s: PackState, choice: Map<Id, ENode>, M: Id, f: ENode): Map<Id, ENode> {
  const { egraph } = s;
  const find = (id: Id) => egraph.find(id);
  const trial = new Map(choice);
  trial.set(M, f);
  for (const [c, pick] of picksOf(egraph, M)) trial.set(c, pick);
  for (const c of f.children) {
    // the partials over operands the plan computes (an f16 product's: its f32 operands read rounded, or their f16 copies)
    const mp = trial.has(find(c)) ? undefined : egraph.eclass(find(c)).nodes.find((x) => x.op === 'matmulPartials' && x.children.every((k) => trial.has(find(k))));
    if (mp) trial.set(find(c), mp);
  }
  return trial;
}

/**
 * Every folded update with all its results and the partials it reads, kept where the whole plan gets cheaper; where
 * all of them together do not (the rules offer overlapping chunks: autocast's f16 weight gradients fold with their
 * biases' and without them, and taking two that share a result leaves one reading partials the plan no longer
 * computes), each one alone, in turn.
 */
function fold(s: PackState): void {
  const { egraph, roots, cost } = s;
  const folds = foldedUpdates(egraph);
  if (folds.length === 0) return;
  const find = (id: Id) => egraph.find(id);
  const keepIfCheaper = (trial: Map<Id, ENode>): boolean => {
    const t = dagCost(trial, roots, cost, find);
    if (t >= s.total) return false;
    [s.choice, s.total] = [trial, t];
    return true;
  };
  if (keepIfCheaper(folds.reduce((choice, [M, f]) => withFold(s, choice, M, f), s.choice)) || folds.length === 1) return;
  for (const [M, f] of folds) keepIfCheaper(withFold(s, s.choice, M, f));
}

/** The split-K fold packer (a move only; `multiTensorUpdatePacker` prices the kernel). */
export const splitKFoldPacker: Packer = { name: 'update-fold-partials', op: 'pointwiseMultiTensor', pack: fold, offered: (egraph) => foldedUpdates(egraph).length > 0 };
