// literals.ts: a fused expression's float constants become reads of one uniform table (issue 22): deduped by bits,
// four per vec4, bound after the dispatch's storage buffers and not counted as one of them.

import { type BinaryOp, Graph, type PwExpr } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { COMPAT_CAPS, type KernelSpec } from './kernel.js';
import { bindLiterals, literal, literalTable } from './literals.js';
import { generateKernel } from './registry.js';

const inp = (index: number): PwExpr => ({ op: 'in', index });
const c = (value: number): PwExpr => ({ op: 'const', value });
const bin = (op: BinaryOp, a: PwExpr, b: PwExpr): PwExpr => ({ op, a, b });

describe('literal tables', () => {
  it('dedupes values by their bits and packs four per vec4, keeping -0, infinities and NaN apart', () => {
    const code = [0, -0, 0, Infinity, -Infinity, Number.NaN, 1e-30, Infinity].map(literal).join(' ');
    const t = literalTable(code);
    expect(t.code).toBe('lits[0].x lits[0].y lits[0].x lits[0].z lits[0].w lits[1].x lits[1].y lits[0].z');
    expect(Array.from(t.data ?? [])).toEqual([0, -0, Infinity, -Infinity, Number.NaN, Math.fround(1e-30)]);
    expect(Object.is(t.data?.[1], -0)).toBe(true);
  });

  it('leaves code without placeholders as it is, with no binding', () => {
    const d = { label: 'k', code: '@group(0) @binding(0) var<storage, read> x: array<f32>;\nfn main() {}', bindings: [], workgroupSize: [1, 1, 1] as const, grid: [1, 1, 1] as const };
    expect(bindLiterals(d)).toBe(d);
  });

  it('binds a fused kernel’s constants as a uniform table after its storage buffers, not counted against them', () => {
    const g = new Graph({ recordSites: false });
    const x = g.input('x', [8]);
    const y = g.input('y', [8]);
    const z = g.input('z', [8]);
    // (x / 0 + y·0) · z + 1e30: four storage buffers (the default limit) plus the literals
    const e = bin('add', bin('mul', bin('add', bin('div', inp(0), c(0)), bin('mul', inp(1), c(0))), inp(2)), c(1e30));
    const node = g.node('pointwise', [x, y, z], { expr: e, dtype: 'f32' });
    const spec: KernelSpec = { node, inputs: [x, y, z].map((n) => ({ shape: n.shape, dtype: n.dtype })) };
    const [d] = generateKernel(spec, COMPAT_CAPS).dispatches;
    expect(d.bindings.map((b) => b.source.kind)).toEqual(['input', 'input', 'input', 'output', 'literals']);
    expect(d.code).toContain('@group(0) @binding(4) var<uniform> lits: array<vec4<f32>, 1>;');
    expect(d.code).toContain('(v0 / lits[0].x)');
    expect(d.code).not.toMatch(/__lit_|\b0\.0\b/);
  });
});
