// The recognition rules, in one list: hand-written attention, GELU, SiLU, norms written from means, log-softmax
// and one-hot cross-entropy become ir's ops and the built-in layers' spellings. Kept out of `RULE_SETS` (optimize
// never runs them): `recognizeForward` does, on the forward graph, and loads on demand with it (nn imports it).

import { activationRecognizeRules } from './activationRecognize.js';
import { attentionRecognizeRules } from './attentionRecognize.js';
import { lossRecognizeRules } from './lossRecognize.js';
import { normRecognizeRules } from './normRecognize.js';
import type { TensorRewrite } from './ruleKit.js';

/**
 * Recognition of hand-written layers as the built-in ones (run by `recognizeForward` only): attention built from
 * matmul/softmax, GELU, SiLU, norms written from means, log-softmax and one-hot cross-entropy.
 */
export const recognizeRules: readonly TensorRewrite[] = [...attentionRecognizeRules, ...activationRecognizeRules, ...normRecognizeRules, ...lossRecognizeRules];
