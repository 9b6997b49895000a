// The split-K fold packer: a momentum-SGD step whose weight gradients are split-K products has its grouped update
// read their partials (one dispatch per weight fewer); without the packer's move, the update reads the reduced
// gradients. The plans' values: test/splitKFold.test.ts.
import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { optimize } from '../optimize.js';

function step(): Graph {
  const g = new Graph();
  const lr = g.input('lr', []);
  const x = g.input('x', [512, 128]);
  for (const i of [0, 1, 2]) {
    const w = g.param(`w${i}`, [128, 128]);
    const buf = g.state(`buf${i}`, [128, 128]);
    const next = g.add(g.mul(buf, 0.9), g.matmul(x, g.input(`dy${i}`, [512, 128]), { transA: true }));
    g.update(buf, next);
    g.update(w, g.sub(w, g.mul(next, lr)));
  }
  return g;
}

describe('pack: split-K partials folded into the grouped update', () => {
  it('takes every folded result at once, three dispatches fewer than without its move', () => {
    const folded = optimize(step());
    const plain = optimize(step(), { withoutPackers: ['update-fold-partials'] });
    const partials = (r: typeof folded) => r.graph.live().filter((id) => r.graph.nodes[id].op === 'matmulPartials').length;
    expect(partials(folded)).toBe(3);
    expect(partials(plain)).toBe(0);
    expect(folded.report.dispatchesAfter).toBe(plain.report.dispatchesAfter - 3);
  });

  it('names the packers it knows when asked to leave out another', () => {
    expect(() => optimize(step(), { withoutPackers: ['no-such'] })).toThrow(/withoutPackers names 'no-such'.*rowwise-multi/);
  });
});
