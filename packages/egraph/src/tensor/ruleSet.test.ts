import { describe, expect, it } from 'vitest';
import { EMPTY_RULES, ruleSetOf, unionRules, withRule } from './ruleSet.js';

describe('RuleSet', () => {
  it('is one object per distinct set of names, listed sorted and each once', () => {
    const a = ruleSetOf(['pointwise-merge', 'pointwise-lift', 'pointwise-merge']);
    expect(a.list).toEqual(['pointwise-lift', 'pointwise-merge']);
    expect(ruleSetOf(new Set(['pointwise-lift', 'pointwise-merge']))).toBe(a);
    expect(ruleSetOf([])).toBe(EMPTY_RULES);
    expect(ruleSetOf(a)).toBe(a);
  });

  it('joins sets as the sorted union of their names, the same object however it was reached', () => {
    const a = ruleSetOf(['reduce-prologue', 'pointwise-lift']);
    const b = ruleSetOf(['pointwise-merge', 'pointwise-lift']);
    const u = unionRules(a, b);
    expect(u.list).toEqual([...new Set([...a.list, ...b.list])].sort());
    expect(unionRules(b, a)).toBe(u);
    expect(unionRules(u, EMPTY_RULES)).toBe(u);
    expect(withRule('reduce-epilogue', u)).toBe(ruleSetOf([...u.list, 'reduce-epilogue']));
  });
});
