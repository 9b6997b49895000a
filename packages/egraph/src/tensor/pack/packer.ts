// A packer: one multi-result kernel's part of the plan, in one module. It prices the kernel's results (each
// `pick`'s share of the kernel the cost model charges), and, where the kernel is taken only after extraction
// (`late`), it moves the extracted plan onto the kernel (`pack`). Must not build e-nodes: the candidates come from
// the rules that offer them (the siblings and update passes); a packer only prices and chooses. One packer is a
// joint move with no kernel of its own (`cast-fold`: a cast left by all its readers at once), run in the same stage.

import type { DagExtraction, EGraph, ENode, Id, NodeCostFunction } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';

/** What a packer's prices read: the e-graph, the kernel's whole cost and the cost model over its classes. */
export interface ShareCtx {
  /** The e-graph the cost function prices. */
  readonly egraph: EGraph<TensorInfo>;
  /** Cost of one dispatch under the model. */
  readonly dispatchCost: number;
  /** The multi-result kernel's whole cost (every result written). */
  readonly whole: number;
  /** The cost model's price of another kernel over the e-graph's classes, writing `out`. */
  cost(node: ENode, out: TensorInfo): number;
  /** A value kept per multi-result node for the life of this cost function (computed once, on first use). */
  memo<T>(make: () => T): T;
}

/** The plan between the first extraction (without the late kernels) and the second one, which starts from it. */
export interface PackState {
  /** The e-graph. */
  readonly egraph: EGraph<TensorInfo>;
  /** The cost function with the late kernels priced in. */
  readonly cost: NodeCostFunction;
  /** The classes extraction starts from. */
  readonly roots: readonly Id[];
  /** The first extraction (late kernels priced out). */
  readonly first: DagExtraction;
  /** The choices so far (a packer replaces it with a cheaper one, with its `total`). */
  choice: Map<Id, ENode>;
  /** DAG cost of `choice`. */
  total: number;
}

/** One multi-result kernel's prices and, for a late kernel, its move on the extracted plan. */
export interface Packer {
  /** Name, as in reports and tests. */
  readonly name: string;
  /** The multi-result op it prices (its `pick`s carry the shares). */
  readonly op: string;
  /**
   * Taken after extraction only: the first extraction prices the op and its picks out (offered from the start, the
   * sibling kernels steer the greedy phase to a worse local optimum elsewhere: GPT 6x384, 408 dispatches instead
   * of 351 before any sibling was grouped), then `pack` moves the plan onto them.
   */
  readonly late?: boolean;
  /** A result's share of the kernel (default: `whole / results`); the shares of all results sum to the kernel. */
  share?(multi: ENode, index: number, src: Id, ctx: ShareCtx): number;
  /** The multi-result node's own cost (default: nearly nothing; the picks carry the kernel). */
  multiCost?(multi: ENode, src: Id, ctx: ShareCtx): number;
  /** Moves the plan onto this packer's kernels where that is cheaper (after the first extraction, in `PACKERS` order). */
  pack?(state: PackState): void;
  /** Whether the e-graph holds a kernel `pack` may take (default: a node of `op` where `late`, else none). */
  offered?(egraph: EGraph<TensorInfo>): boolean;
}

/** The members of a multi-result class: each class holding a pick of it, with that pick. */
export function picksOf(egraph: EGraph<TensorInfo>, multi: Id): Map<Id, ENode> {
  const M = egraph.find(multi);
  const members = new Map<Id, ENode>();
  for (const [, c] of egraph.eclass(M).parents) {
    const pick = egraph.eclass(c).nodes.find((x) => x.op === 'pick' && egraph.find(x.children[0]) === M);
    if (pick) members.set(egraph.find(c), pick);
  }
  return members;
}

/** The class's node of this op (the first one), or undefined. */
export function nodeOf(egraph: EGraph<TensorInfo>, cls: Id, op: string): ENode | undefined {
  return egraph.eclass(cls).nodes.find((x) => x.op === op);
}
