// Every tensor rule in one list: the optimizer's rule sets (`RULE_SETS`) and the recognition rules that
// `recognizeForward` runs before differentiation. For tests that check each rule (rule soundness); loading it loads
// the recognition rules, which nothing on optimize's path needs.

import { RULE_SETS } from './optimize.js';
import { recognizeRules } from './rules/recognize.js';
import type { TensorRewrite } from './rules/ruleKit.js';

/** Every tensor rule: `RULE_SETS` in set order, then `recognizeRules` (each rule once). */
export const allRules: readonly TensorRewrite[] = [...new Set<TensorRewrite>([...Object.values(RULE_SETS).flat(), ...recognizeRules])];
