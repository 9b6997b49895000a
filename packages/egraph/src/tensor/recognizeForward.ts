// `recognizeForward(graph)`: the pass that runs on a forward graph before differentiation and turns hand-written
// patterns into ir's ops and the built-in layers' spellings (`recognizeRules`: attention, GELU, SiLU, norms,
// log-softmax, cross-entropy), so that autograd differentiates the op and the step gets the built-in layer's fused
// backward (for attention: attentionLse and attentionGrad, grouped later by `optimize`). Recognizing the
// forward after `grad` would leave the backward of softmax and both matmuls decomposed (autograd already spelled
// it out), which is where most of the T×T traffic is. Must not change anything else: a graph with no match comes
// back as the same object, and a rebuilt one keeps outputs, leaves (declared inputs included) and updates.

import type { Graph as GraphT } from '@neura/ir';
import type { ENode, Id } from '../core/index.js';
import { DagExtractor, Runner, SimpleScheduler } from '../core/index.js';
import { egraphToGraph, graphToEGraph } from './optimize.js';
import { recognizeRules } from './rules/recognize.js';
import { rulesOf } from './rules/ruleKit.js';
import { tensorAnalysisOf } from './tensorAnalysis.js';

/** What `recognizeForward` did: the graph (the given one when nothing matched) and the rule hits. */
export interface RecognizeResult {
  /** The graph with its recognized layers (the given one when nothing matched). */
  readonly graph: GraphT;
  /** Applications per rule (empty when nothing matched). */
  readonly applied: Readonly<Record<string, number>>;
}

/** The names of the recognition rules: a node one of them made is what extraction takes. */
const RECOGNIZE_RULES: ReadonlySet<string> = new Set(recognizeRules.map((r) => r.name));

/**
 * Iterations of the recognition run. Rules build on each other at most three deep (x·x → x², then the one-pass
 * variance → the centred one, then a division by its root → rsqrt); every other pattern is present before any rule
 * fires, so four iterations reach the fixpoint.
 */
const ITERATIONS = 4;

/** Runs the recognition rules on a forward graph and rebuilds it with every recognized op in place of its primitives. */
export function recognizeForward(graph: GraphT): RecognizeResult {
  const loaded = graphToEGraph(graph);
  const { egraph } = loaded;
  const report = new Runner(egraph, { iterLimit: ITERATIONS, scheduler: new SimpleScheduler() }).run(recognizeRules);
  const applied = Object.fromEntries(Object.entries(report.applied).filter(([, n]) => n > 0));
  if (Object.keys(applied).length === 0) return { graph, applied };
  tensorAnalysisOf(egraph)?.settle(egraph);
  // node count, with a node a recognition rule made cheaper than any one node: a DAG-aware extraction keeps a
  // primitive only where something else still reads it (e.g. probabilities the user outputs)
  const cost = { nodeCost: (n: ENode, cls: Id) => (rulesOf(egraph, cls, n).some((r) => RECOGNIZE_RULES.has(r)) ? 0.5 : 1) };
  const extraction = new DagExtractor(egraph, cost).extract(loaded.roots);
  const { graph: out } = egraphToGraph(loaded, extraction, graph);
  // inputs the recognized ops no longer read (a mask) stay declared: feeds that name them remain valid
  const have = new Set(out.leaves('input').map((n) => n.attrs.name));
  for (const n of graph.leaves('input')) if (!have.has(n.attrs.name)) out.input(n.attrs.name, n.shape, n.dtype);
  return { graph: out, applied };
}
