import { Graph } from '@neura/ir';
import { batches, cosineLr, countCorrect, IdxError, mlp, mnistFromIdx, parseIdx } from '@neura/nn';
import { describe, expect, it } from 'vitest';

function idx(dims: number[], data: number[]): Uint8Array {
  const head = new DataView(new ArrayBuffer(4 + 4 * dims.length));
  head.setUint32(0, 0x0800 | dims.length);
  for (const [i, d] of dims.entries()) head.setUint32(4 + 4 * i, d);
  const out = new Uint8Array(head.byteLength + data.length);
  out.set(new Uint8Array(head.buffer));
  out.set(data, head.byteLength);
  return out;
}

describe('IDX and MNIST parsing', () => {
  it('decodes dims and bytes of an IDX file', () => {
    const f = parseIdx(idx([2, 3], [1, 2, 3, 4, 5, 6]));
    expect(f.dims).toEqual([2, 3]);
    expect([...f.data]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('rejects a truncated file, naming both sizes', () => {
    const bytes = idx([2, 3], [1, 2, 3, 4, 5, 6]).subarray(0, 14);
    expect(() => parseIdx(bytes, 'labels')).toThrow(/labels: header says 6 bytes of data for dims \[2,3\], file has 2/);
  });

  it('normalises pixels with the MNIST mean and std and keeps labels', () => {
    const pixels = new Array(2 * 28 * 28).fill(0);
    pixels[0] = 255;
    const s = mnistFromIdx(idx([2, 28, 28], pixels), idx([2], [7, 3]));
    expect(s.count).toBe(2);
    expect([...s.labels]).toEqual([7, 3]);
    expect(s.images[0]).toBeCloseTo((1 - 0.1307) / 0.3081, 5);
    expect(s.images[1]).toBeCloseTo(-0.1307 / 0.3081, 5);
  });
});

describe('batches', () => {
  const data = { count: 10, images: Float32Array.from({ length: 20 }, (_, i) => i), labels: Int32Array.from({ length: 10 }, (_, i) => i) };

  it('yields only full batches, in order without a seed', () => {
    const seen: number[][] = [];
    for (const b of batches(data, 2, { batchSize: 4 })) seen.push([...b.labels]); // buffers are reused: copy
    expect(seen).toEqual([[0, 1, 2, 3], [4, 5, 6, 7]]);
  });

  it('yields the partial last batch with fewer rows when asked', () => {
    const seen: { labels: number[]; x: number }[] = [];
    for (const b of batches(data, 2, { batchSize: 4, lastBatch: 'partial' })) seen.push({ labels: [...b.labels], x: b.x.length });
    expect(seen).toEqual([
      { labels: [0, 1, 2, 3], x: 8 },
      { labels: [4, 5, 6, 7], x: 8 },
      { labels: [8, 9], x: 4 },
    ]);
  });

  it('shuffles with a seed, keeping images and labels together', () => {
    for (const b of batches(data, 2, { batchSize: 5, shuffleSeed: 3 }))
      for (let i = 0; i < 5; i++) expect(b.x[2 * i]).toBe(b.labels[i] * 2);
    const a = batches(data, 2, { batchSize: 10, shuffleSeed: 3, epoch: 0 }).next().value?.labels.slice() ?? [];
    const b = batches(data, 2, { batchSize: 10, shuffleSeed: 3, epoch: 1 }).next().value?.labels.slice() ?? [];
    expect([...a].sort()).toEqual([...b].sort());
    expect([...a]).not.toEqual([...b]);
  });
});

describe('layers, schedules and metrics', () => {
  it('names MLP parameters by layer and infers shapes', () => {
    const g = new Graph();
    const y = mlp([6, 4, 3]).forward(g, g.input('x', [2, 6]));
    expect(y.shape).toEqual([2, 3]);
    expect(g.leaves('param').map((p) => [p.attrs.name, p.shape])).toEqual([
      ['0.weight', [6, 4]],
      ['0.bias', [4]],
      ['2.weight', [4, 3]],
      ['2.bias', [3]],
    ]);
  });

  it('rejects an input with the wrong number of features, naming the layer', () => {
    const g = new Graph();
    expect(() => mlp([6, 3]).forward(g, g.input('x', [2, 5]))).toThrow(/Linear\(6, 3\) '0': input has 5 features, expected 6/);
  });

  it("warms up, peaks once and decays to the final rate on the last step, as nanoGPT's get_lr", () => {
    const s = cosineLr(1, { warmup: 2, finalLr: 0.1 });
    // nanoGPT: warmup_iters 2, lr_decay_iters 11 (the last of 12 steps), min_lr 0.1
    const nano = (it: number) => (it < 2 ? (it + 1) / 3 : 0.1 + 0.5 * (1 + Math.cos((Math.PI * (it - 2)) / 9)) * 0.9);
    for (let i = 0; i < 12; i++) expect(s(i, 12)).toBeCloseTo(nano(i), 12);
    expect([s(1, 12), s(2, 12), s(3, 12)].filter((v) => v === 1)).toHaveLength(1); // one peak, not two
    expect(s(11, 12)).toBeCloseTo(0.1, 12);
    expect(cosineLr(0.5)(0, 1)).toBe(0.5); // a one-step run trains at lr
    expect(() => cosineLr(1, { warmup: 1.5 })).toThrow(/warmup must be a non-negative integer/);
  });

  it('counts argmax hits', () => {
    expect(countCorrect([0.1, 0.9, 0.8, 0.2], [1, 1], 2)).toBe(1);
  });
});

describe('malformed IDX files are IdxErrors that say what is wrong (issue 9, item 11)', () => {
  it('a rank byte that puts the dims past the end of the file', () => {
    const bytes = new Uint8Array([0, 0, 8, 200, 0, 0, 0, 2]); // rank 200 in an 8-byte file
    const err = (() => {
      try {
        parseIdx(bytes, 'labels');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(IdxError);
    expect(String(err)).toMatch(/labels: the header declares 200 dims \(804 header bytes\), the file has 8 bytes/);
  });

  it('a wrong type code or magic is an IdxError too', () => {
    expect(() => parseIdx(new Uint8Array([0, 0, 0x0d, 1, 0, 0, 0, 0]))).toThrow(IdxError);
    expect(() => parseIdx(new Uint8Array([1, 2]))).toThrow(IdxError);
  });

  it('an images file passed as the labels file is refused, naming both shapes', () => {
    const images = idx([2, 28, 28], new Array(2 * 28 * 28).fill(0));
    expect(() => mnistFromIdx(images, images, 'mnist train')).toThrow(/mnist train: labels have dims \[2,28,28\], expected \[N\] \(an images file given as labels\?\)/);
  });

  it('a label outside 0..9 is refused', () => {
    const images = idx([2, 28, 28], new Array(2 * 28 * 28).fill(0));
    expect(() => mnistFromIdx(images, idx([2], [3, 12]))).toThrow(/label 12 at index 1 is outside 0\.\.9/);
  });

  it('every truncation and every rank byte of a valid file parses or is an IdxError, never another error', () => {
    const good = idx([3, 2], [1, 2, 3, 4, 5, 6]);
    const tries: Uint8Array[] = [];
    for (let n = 0; n < good.length; n++) tries.push(good.slice(0, n));
    for (let rank = 0; rank < 256; rank++) {
      const b = good.slice();
      b[3] = rank;
      tries.push(b);
    }
    for (const b of tries) {
      try {
        parseIdx(b);
      } catch (e) {
        expect(e, `${b.length} bytes, rank byte ${b[3]}`).toBeInstanceOf(IdxError);
      }
    }
  });
});
