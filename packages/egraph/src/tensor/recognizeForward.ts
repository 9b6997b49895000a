// `recognizeForward(graph)`: the pass that runs on a forward graph before differentiation and turns hand-written
// patterns into ir's fused ops (the `recognize` rule set: attention), so that autograd differentiates the op and
// the step gets its fused backward (attentionLse and attentionGrad, grouped later by `optimize`). Recognizing the
// forward after `grad` would leave the backward of softmax and both matmuls decomposed (autograd already spelled
// it out), which is where most of the T×T traffic is. Must not change anything else: a graph with no match comes
// back as the same object, and a rebuilt one keeps outputs, leaves (declared inputs included) and updates.

import type { Graph as GraphT } from '@neura/ir';
import type { ENode } from '../core/index.js';
import { DagExtractor, Runner, SimpleScheduler } from '../core/index.js';
import { egraphToGraph, graphToEGraph } from './optimize.js';
import { attentionRecognizeRules } from './rules/attentionRecognize.js';

/** What `recognizeForward` did: the graph (the given one when nothing matched) and the rule hits. */
export interface RecognizeResult {
  /** The graph with recognized attention (the given one when nothing matched). */
  readonly graph: GraphT;
  /** Applications per rule (empty when nothing matched). */
  readonly applied: Readonly<Record<string, number>>;
}

/** The fused ops a recognition adds; extraction takes them over the primitive nodes they stand for. */
const RECOGNIZED = new Set(['attention']);

/**
 * Runs the recognition rules on a forward graph (bounded: the patterns are all present before any rule fires, so
 * two iterations reach the fixpoint) and rebuilds it with every recognized op in place of its primitives.
 */
export function recognizeForward(graph: GraphT): RecognizeResult {
  const loaded = graphToEGraph(graph);
  const report = new Runner(loaded.egraph, { iterLimit: 2, scheduler: new SimpleScheduler() }).run(attentionRecognizeRules);
  const applied = Object.fromEntries(Object.entries(report.applied).filter(([, n]) => n > 0));
  if (Object.keys(applied).length === 0) return { graph, applied };
  // node count, with the recognized op cheaper than any one node: a DAG-aware extraction keeps a primitive only
  // where something else still reads it (e.g. probabilities the user outputs)
  const cost = { nodeCost: (n: ENode) => (RECOGNIZED.has(n.op) ? 0.5 : 1) };
  const extraction = new DagExtractor(loaded.egraph, cost).extract(loaded.roots);
  const { graph: out } = egraphToGraph(loaded, extraction, graph);
  // inputs the recognized ops no longer read (a mask) stay declared: feeds that name them remain valid
  const have = new Set(out.leaves('input').map((n) => n.attrs.name));
  for (const n of graph.leaves('input')) if (!have.has(n.attrs.name)) out.input(n.attrs.name, n.shape, n.dtype);
  return { graph: out, applied };
}
