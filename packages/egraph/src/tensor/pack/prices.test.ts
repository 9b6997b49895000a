// The prices of the kernels chosen in extraction (grouped updates, attention with its log-sum-exp): every result
// together costs the kernel; the log-sum-exp from the forward costs less than a separate attentionLse kernel.
import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { costDefaults, opCost } from '../costModel.js';
import { irENode } from '../tensorLanguage.js';
import { prices, saturated } from './packTesting.js';

const whole = (s: ReturnType<typeof saturated>, M: number, node: Parameters<typeof opCost>[0]) =>
  opCost(node, [...new Set(node.children.map((c) => s.egraph.find(c)))].map((c) => s.egraph.eclass(c).data), s.egraph.eclass(M).data, costDefaults(), node.children.map((c) => s.egraph.eclass(c).data));

describe('pack: prices of the grouped updates and attention with its log-sum-exp', () => {
  it('a grouped update: its results together cost the kernel, the larger parameter more', () => {
    const g = new Graph();
    const lr = g.input('lr', []);
    for (const [i, n] of [[0, 4096], [1, 64]] as const) {
      const w = g.param(`w${i}`, [n]);
      g.update(w, g.sub(w, g.mul(g.input(`g${i}`, [n]), lr)));
    }
    const s = saturated(g);
    const found = prices(s, 'pointwiseMultiTensor');
    expect(found.length).toBeGreaterThan(0);
    for (const { M, node, own, picks } of found) {
      expect(own + picks.reduce((a, b) => a + b, 0)).toBeCloseTo(whole(s, M, node), 4);
      expect(picks.length).toBe(2);
    }
  });

  it("attention's log-sum-exp result costs just under a separate attentionLse kernel", () => {
    const g = new Graph();
    const [q, k, v] = ['q', 'k', 'v'].map((n) => g.input(n, [2, 4, 64, 16]));
    const attrs = { causal: true, scale: 0.25 };
    g.output('out', g.attention(q, k, v, attrs));
    g.output('lse', g.node('attentionLse', [q, k], attrs)); // what the backward reads
    const s = saturated(g);
    const found = prices(s, 'attentionWithLse');
    expect(found.length).toBeGreaterThan(0);
    for (const { M, node, own, picks } of found) {
      const lse = irENode('attentionLse', node.data as never, node.children.slice(0, 2));
      const separate = opCost(lse, lse.children.map((c) => s.egraph.eclass(c).data), { shape: [2, 4, 64], dtype: 'f32' }, costDefaults());
      expect(picks[1]).toBeLessThan(separate);
      expect(own + picks[0] + picks[1]).toBeCloseTo(whole(s, M, node), 4);
    }
  });
});
