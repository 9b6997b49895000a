// Index operands fed at run time (gather ids, scatterAdd indices) are checked on the host like labels: the op
// table in @neura/ir says which operands hold indices and their bound, so an out-of-range id is a RangeError
// naming the input, the position and the bound, before anything runs — never a silent clamp on the GPU.

import { Graph, tensor } from '@neura/ir';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, createDevice, type NeuraDevice } from '../src/index.js';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device?.destroy());

describe('index inputs are host-checked', () => {
  it('gather: an id outside [0, rows) is a RangeError naming the input, index, value and bound; state untouched', async () => {
    const g = new Graph();
    const table = g.param('table', [5, 3], { kind: 'fill', value: 1 });
    const ids = g.input('ids', [4], 'i32');
    g.output('y', g.gather(table, ids));
    const session = await compile(g, device);
    const ok = await session.step({ ids: tensor([4], [0, 4, 2, 1], 'i32') }, { read: ['y'] });
    expect(Array.from(ok.outputs.y.data)).toEqual(new Array(12).fill(1));
    const err = await session.step({ ids: tensor([4], [0, 5, 2, 1], 'i32') }).catch((e) => e);
    expect(err).toBeInstanceOf(RangeError);
    expect(err.message).toMatch(/input 'ids': index 5 at position 1 is outside \[0, 5\) \(axis 0 of gather\)/);
    await expect(session.step({ ids: tensor([4], [0, 0, -1, 0], 'i32') })).rejects.toThrow(/index -1 at position 2/);
    session.dispose();
  });

  it('gather through a reshape of the fed ids is still checked (the alias shares the buffer)', async () => {
    const g = new Graph();
    const table = g.param('table', [3, 2]);
    const ids = g.input('ids', [2, 2], 'i32');
    g.output('y', g.gather(table, g.reshape(ids, [4])));
    const session = await compile(g, device);
    await expect(session.step({ ids: tensor([2, 2], [0, 1, 2, 3], 'i32') })).rejects.toThrow(/index 3 at position 3 is outside \[0, 3\)/);
    session.dispose();
  });

  it('scatterAdd: an index outside the target axis is refused', async () => {
    const g = new Graph();
    const target = g.param('target', [4]);
    const idx = g.input('idx', [2], 'i32');
    const upd = g.input('upd', [2]);
    g.output('y', g.scatterAdd(target, idx, upd));
    const session = await compile(g, device);
    await expect(session.step({ idx: tensor([2], [1, 4], 'i32'), upd: tensor([2], [1, 1]) })).rejects.toThrow(
      /input 'idx': index 4 at position 1 is outside \[0, 4\) \(axis 0 of scatterAdd\)/,
    );
    session.dispose();
  });
});
