// @neura/egraph: the generic e-graph core (egg-style) and, from `src/tensor`, the tensor optimizer.
// Explicit exports only (no `export *`); `src/core` imports nothing outside itself.

/**
 * A generic egg-style e-graph (patterns, rewrites, runner, extraction) and the tensor optimizer `optimize`, which
 * fuses a training step into few kernels by equality saturation.
 *
 * @module @neura/egraph
 */
export type {
  Analysis,
  Applier,
  ApplyFn,
  BackoffOptions,
  Condition,
  CostFunction,
  DagExtraction,
  DagExtractorOptions,
  EClass,
  ENode,
  Extraction,
  Id,
  Iteration,
  Language,
  Match,
  NodeCostFunction,
  NodeData,
  NodeRuleOptions,
  NodeSignature,
  PatternAst,
  PatternNode,
  PatternVar,
  RecExpr,
  Report,
  RuleState,
  RunnerHook,
  RunnerOptions,
  RwOptions,
  Scheduler,
  SearchStop,
  Searcher,
  SExp,
  StopReason,
  Term,
} from './core/index.js';
export {
  BackoffScheduler,
  DagExtractor,
  MultiPattern,
  EGraph,
  EGraphError,
  EGraphStateError,
  ExtractionError,
  Extractor,
  ParseError,
  RuleError,
  Pattern,
  Rewrite,
  Runner,
  SimpleScheduler,
  Subst,
  UnionFind,
  arithmetic,
  astDepth,
  astSize,
  birw,
  collectChoices,
  dagCost,
  dataEquals,
  dataKey,
  dataMatches,
  declareDataKey,
  defaultLanguage,
  enode,
  fnApplier,
  formatOp,
  mapChildren,
  noAnalysis,
  nodeKey,
  nodeRule,
  nodeSignature,
  parseOp,
  parseRecExpr,
  parseSExp,
  parseTerm,
  pnode,
  pvar,
  reachableClasses,
  recExprToString,
  rw,
  term,
  termToRecExpr,
  termToString,
  toRecExpr,
  treeCost,
  varName,
} from './core/index.js';
// tensor optimizer exports are added by src/tensor
export type { CostModel, CostOptions } from './tensor/costModel.js';
export { costDefaults, isKernelOp, opCost, tensorBytes, tensorCost } from './tensor/costModel.js';
export type { LoadedGraph, OptimizeOptions, OptimizeResult, PassReport, PassSpec, RuleSetName } from './tensor/optimize.js';
export type { RecognizeResult } from './tensor/recognizeForward.js';
export { recognizeForward } from './tensor/recognizeForward.js';
export { DEFAULT_FUSION_WIDTH, MAX_DEFAULT_POINTWISE_INPUTS } from './tensor/fusionWidth.js';
export { DEFAULT_PASSES, RULE_SETS, egraphToGraph, graphToEGraph, optimize, optimizeRules } from './tensor/optimize.js';
export { allRules } from './tensor/allRules.js';
export { recognizeRules } from './tensor/rules/recognize.js';
export type { EGraphFigures, FusedKernel, GraphFigures, MemoryFit, OptimizePhases } from './tensor/report.js';
export { OptimizeReport, debugLevel, egraphToDot, fmtBytes, graphFigures } from './tensor/report.js';
export type { TensorRewrite } from './tensor/rules/ruleKit.js';
export { algebraRules } from './tensor/rules/algebra.js';
export { backwardRules } from './tensor/rules/backward.js';
export { fusionRules } from './tensor/rules/fusion.js';
export { layoutRules } from './tensor/rules/layout.js';
export { multiUpdateRules } from './tensor/rules/multiUpdate.js';
export { reduceFusionRules } from './tensor/rules/reduceFusion.js';
export { matmulEpilogueRules } from './tensor/rules/matmulEpilogue.js';
export { TensorLanguageError, TensorTypeError } from './tensor/errors.js';
export { MemoryBudgetError } from './tensor/memoryFit.js';
export { recomputeRules } from './tensor/recompute.js';
export type { TensorAnalysisOptions, TensorInfo } from './tensor/tensorAnalysis.js';
export { TensorAnalysis } from './tensor/tensorAnalysis.js';
export type { IrOp } from './tensor/tensorLanguage.js';
export { constENode, enodeAttrs, fromENode, irENode, tensorLanguage, toENode } from './tensor/tensorLanguage.js';
