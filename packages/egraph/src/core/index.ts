// Public API of the generic e-graph core (egg's model and names): e-graph, patterns, rewrites, runner,
// extraction. Imports nothing outside `src/core`; explicit exports only. The arithmetic test language lives
// in `./testing/math.ts` and is re-exported as `arithmetic` for tests and benchmarks of the core.
export type { DataRecord, ENode, Id, Language, NodeData } from './language.js';
export { DATA_KEY, dataEquals, dataKey, declareDataKey, dataMatches, defaultLanguage, enode, isDataRecord, mapChildren, nodeKey } from './language.js';
export { UnionFind } from './unionFind.js';
export type { SExp } from './sexpr.js';
export { formatOp, parseOp, parseSExp } from './sexpr.js';
export type { RecExpr, Term } from './recExpr.js';
export { parseRecExpr, parseTerm, recExprToString, term, termToRecExpr, termToString } from './recExpr.js';
export type { Analysis, EClass } from './eGraph.js';
export { EGraph, noAnalysis } from './eGraph.js';
export type { Match } from './subst.js';
export { Subst, varName } from './subst.js';
export type { PatternAst, PatternNode, PatternVar } from './pattern.js';
export { Pattern, instantiateData, pnode, pvar } from './pattern.js';
export { MultiPattern } from './multiPattern.js';
export type { Applier, ApplyFn, Condition, RwOptions, Searcher } from './rewrite.js';
export { Rewrite, birw, fnApplier, rw } from './rewrite.js';
export type { NodeRuleOptions, NodeSignature, RuleState } from './nodeRule.js';
export { nodeRule, nodeSignature } from './nodeRule.js';
export type { BackoffOptions, Scheduler } from './scheduler.js';
export { BackoffScheduler, SimpleScheduler } from './scheduler.js';
export type { Iteration, Report, RunnerHook, RunnerOptions, StopReason } from './runner.js';
export { Runner } from './runner.js';
export type { CostFunction, Extraction, NodeCostFunction } from './extract.js';
export { EGraphError, EGraphStateError, ExtractionError, ParseError, RuleError } from './errors.js';
export { Extractor, astDepth, astSize, collectChoices, dagCost, reachableClasses, toRecExpr, treeCost } from './extract.js';
export type { DagExtraction, DagExtractorOptions, SearchStop } from './dagExtractor.js';
export { DagExtractor } from './dagExtractor.js';
import * as arithmetic from './testing/math.js';
/** The arithmetic test language of the core (egg's `math`): language, analysis and rule sets. */
export { arithmetic };
