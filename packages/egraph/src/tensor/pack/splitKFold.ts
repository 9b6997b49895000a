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

/** Every folded update with all its results and the partials it reads, kept where the whole plan gets cheaper. */
function fold(s: PackState): void {
  const { egraph, roots, cost } = s;
  const folds = foldedUpdates(egraph);
  if (folds.length === 0) return;
  const find = (id: Id) => egraph.find(id);
  const trial = new Map(s.choice);
  for (const [M, f] of folds) {
    trial.set(M, f);
    for (const [c, pick] of picksOf(egraph, M)) trial.set(c, pick);
    for (const c of f.children) {
      // the partials over operands the plan computes (an f16 product's: its f32 operands read rounded, or their f16 copies)
      const mp = trial.has(find(c)) ? undefined : egraph.eclass(find(c)).nodes.find((x) => x.op === 'matmulPartials' && x.children.every((k) => trial.has(find(k))));
      if (mp) trial.set(find(c), mp);
    }
  }
  const t = dagCost(trial, roots, cost, find);
  if (t < s.total) [s.choice, s.total] = [trial, t];
}

/** The split-K fold packer (a move only; `multiTensorUpdatePacker` prices the kernel). */
export const splitKFoldPacker: Packer = { name: 'update-fold-partials', op: 'pointwiseMultiTensor', pack: fold, offered: (egraph) => foldedUpdates(egraph).length > 0 };
