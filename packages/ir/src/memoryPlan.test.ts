import { describe, expect, it } from 'vitest';
import { alignedBytes, planMemory, type TensorLifetime } from './memoryPlan.js';

const t = (key: string, bytes: number, start: number, end: number, persistent = false): TensorLifetime => ({ key, bytes, start, end, persistent });

/** A pseudo-random chain of transient tensors plus some persistent ones. */
function randomTensors(seed: number, n: number): TensorLifetime[] {
  let s = seed;
  const r = () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const out: TensorLifetime[] = [];
  for (let i = 0; i < n; i++) {
    const start = i;
    const end = Math.min(n, i + Math.floor(r() * 6));
    out.push(t(`t${i}`, 4 * (1 + Math.floor(r() * 500)), start, end, r() < 0.2));
  }
  return out;
}

describe('planMemory', () => {
  it('reuses a buffer once its tensor is dead', () => {
    const plan = planMemory([t('a', 400, 0, 1), t('b', 400, 1, 2), t('c', 400, 2, 3)]);
    // a dies after 1, so c (starting at 2) takes a's buffer; b overlaps both
    expect(plan.bufferOf.get('c')).toBe(plan.bufferOf.get('a'));
    expect(plan.bufferOf.get('b')).not.toBe(plan.bufferOf.get('a'));
    expect(plan.report.buffers).toBe(2);
    expect(plan.report.reused).toBe(1);
  });

  it('reports the most bytes live at once: persistent buffers plus the transient peak', () => {
    // a [0,1] 64 B, b [1,2] 32 B, c [2,3] 48 B: positions 1 and 2 hold 96 and 80 transient bytes; plus 16 persistent
    const plan = planMemory([t('a', 64, 0, 1), t('b', 32, 1, 2), t('c', 48, 2, 3), t('w', 16, 0, 0, true)]);
    expect(plan.report.peakLiveBytes).toBe(96 + 16);
    expect(plan.report.bytesAllocated).toBeGreaterThanOrEqual(plan.report.peakLiveBytes);
  });

  it('does not share between a dispatch input and its output (inclusive intervals)', () => {
    const plan = planMemory([t('x', 64, 0, 1), t('y', 64, 1, 2)]);
    expect(plan.bufferOf.get('x')).not.toBe(plan.bufferOf.get('y'));
  });

  it('never shares persistent tensors, even with disjoint intervals', () => {
    const plan = planMemory([t('w', 64, 0, 0, true), t('a', 64, 1, 1), t('m', 64, 0, 0, true), t('b', 64, 3, 3)]);
    const w = plan.bufferOf.get('w');
    const m = plan.bufferOf.get('m');
    expect(w).not.toBe(m);
    for (const k of ['a', 'b']) {
      expect(plan.bufferOf.get(k)).not.toBe(w);
      expect(plan.bufferOf.get(k)).not.toBe(m);
    }
    expect(plan.buffers.filter((b) => b.persistent).map((b) => b.tensors)).toEqual([['w'], ['m']]);
  });

  it('picks the best-fitting free buffer and grows one when none fits', () => {
    const plan = planMemory([t('big', 1024, 0, 0), t('small', 64, 0, 0), t('s2', 48, 1, 1), t('huge', 4096, 2, 2)]);
    expect(plan.bufferOf.get('s2')).toBe(plan.bufferOf.get('small'));
    // huge grows the largest free buffer instead of allocating a third one
    expect(plan.report.buffers).toBe(2);
    expect(plan.buffers[plan.bufferOf.get('huge') as number].bytes).toBe(4096);
  });

  it('reports allocated bytes against the sum of all tensors', () => {
    const plan = planMemory([t('p', 100, 0, 0, true), t('a', 400, 0, 1), t('b', 400, 1, 2), t('c', 400, 2, 3)]);
    expect(plan.report.bytesIfUnshared).toBe(alignedBytes(100) + 3 * 400);
    expect(plan.report.bytesAllocated).toBe(alignedBytes(100) + 2 * 400);
    expect(plan.report.persistentBytes).toBe(alignedBytes(100));
    expect(plan.report.transientBytes).toBe(800);
    expect(plan.report.tensors).toBe(4);
  });

  it('keeps intervals of tensors sharing a buffer disjoint on random schedules', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const tensors = randomTensors(seed, 60);
      const plan = planMemory(tensors);
      const byKey = new Map(tensors.map((x) => [x.key, x]));
      let checked = 0;
      for (const b of plan.buffers) {
        const ts = b.tensors.map((k) => byKey.get(k) as TensorLifetime);
        if (b.persistent) expect(ts).toHaveLength(1);
        for (const x of ts) expect(b.bytes).toBeGreaterThanOrEqual(alignedBytes(x.bytes));
        for (let i = 0; i < ts.length; i++)
          for (let j = i + 1; j < ts.length; j++) {
            const overlap = ts[i].start <= ts[j].end && ts[j].start <= ts[i].end;
            expect(overlap, `${ts[i].key} and ${ts[j].key} share buffer ${b.index}`).toBe(false);
            checked++;
          }
      }
      expect(checked).toBeGreaterThan(0);
      expect(plan.report.bytesAllocated).toBeLessThan(plan.report.bytesIfUnshared);
    }
  });

  it('rejects a tensor that ends before it starts', () => {
    expect(() => planMemory([t('x', 4, 3, 1)])).toThrow(/'x' ends \(1\) before it starts \(3\)/);
  });

  it('lays an arena out in one buffer at 256-byte offsets, as one tensor living while any member does', () => {
    const plan = planMemory(
      [t('p0', 40, 0, 0, true), t('p1', 300, 0, 0, true), t('g0', 40, 2, 5), t('g1', 8, 4, 5), t('x', 64, 0, 1), t('y', 64, 6, 7)],
      [
        { key: 'params', tensors: ['p0', 'p1'] },
        { key: 'grads', tensors: ['g0', 'g1'] },
      ],
    );
    expect(plan.bufferOf.get('p1')).toBe(plan.bufferOf.get('p0'));
    expect([plan.offsetOf.get('p0'), plan.offsetOf.get('p1')]).toEqual([0, 256]);
    expect(plan.arenas.get('params')?.bytes).toBe(768);
    expect(plan.bufferOf.get('g1')).toBe(plan.bufferOf.get('g0'));
    expect(plan.offsetOf.get('g1')).toBe(256);
    // the gradient arena lives over [2, 5]: x (dead at 1) may share its buffer, y (from 6) too; none overlaps it
    expect(plan.buffers[plan.bufferOf.get('g0') as number].tensors).toEqual(expect.arrayContaining(['g0', 'g1']));
    expect(plan.bufferOf.get('y')).toBe(plan.bufferOf.get('g0'));
    expect(plan.buffers[plan.bufferOf.get('g0') as number].bytes).toBeGreaterThanOrEqual(512);
  });

  it('refuses an arena that mixes persistent and transient tensors, or a tensor in two arenas', () => {
    const ts = [t('p', 4, 0, 0, true), t('g', 4, 0, 1), t('h', 4, 0, 1)];
    expect(() => planMemory(ts, [{ key: 'a', tensors: ['p', 'g'] }])).toThrow(/mixes persistent and transient/);
    expect(() => planMemory(ts, [{ key: 'a', tensors: ['g'] }, { key: 'b', tensors: ['g', 'h'] }])).toThrow(/'g' is in arenas 'a' and 'b'/);
  });
});
