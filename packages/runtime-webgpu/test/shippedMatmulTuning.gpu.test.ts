// Shipped matmul tables reach kernel selection on a real adapter. This machine has no H200, so the H200 table is
// exercised on the software adapter's device relabelled with the H200's adapter info (the lookup reads only the
// adapter key and the device limits; the kernels are really generated and their pipelines created here):
// a shape in the table compiles to its shipped tiling there, and to the heuristic on the real adapter (another
// adapter's table is ignored), with `shippedMatmulTuning: false`, with a user entry over it, under lowered limits.
// Where this machine's adapter has a table of its own (llvmpipe, SwiftShader), it is used for real.
import { Graph, interpret } from '@neura/ir';
import { generateKernel, type KernelGenerator, MATMUL_CONFIG_BY_NAME } from '@neura/wgsl-kernels';
import { afterAll, describe, expect, it } from 'vitest';
import { adapterKey, compile, createDevice, matmulTuningOf, type NeuraDevice, SHIPPED_MATMUL_TUNINGS, shippedMatmulTuning } from '../src/index.js';
import { randoms } from './graphs.js';

const device: NeuraDevice = await createDevice();
afterAll(() => device.destroy());

const H200 = SHIPPED_MATMUL_TUNINGS.find((t) => t.adapter.includes('nvidia-h200')) ?? expect.unreachable('no shipped H200 table');
const KEY = '16384x384x65:NT:b1'; // the GPT 6×384 step's logits gradient · embedding, in the H200 table
const SHIPPED = H200.tuning[KEY];

/** `d` as seen by table lookups on the adapter of `key` (vendor|architecture|device|description|backend). */
function relabelled(d: NeuraDevice, key: string): NeuraDevice {
  const [vendor, architecture, dev, description, backend] = key.split('|');
  return { ...d, adapterInfo: { ...d.adapterInfo, vendor, architecture, device: dev, description, backend }, check: () => d.check() };
}

/** The WGSL header line of each matmul kernel a compile of [m,k]·[n,k]ᵀ (default: the H200 table's KEY) generates. */
async function matmulHeaders(d: NeuraDevice, opts: Parameters<typeof compile>[2] = {}, [m, n, k] = [16384, 384, 65]): Promise<string[]> {
  const g = new Graph();
  g.output('y', g.matmul(g.input('a', [m, k]), g.input('b', [n, k]), { transB: true }));
  const headers: string[] = [];
  const generator: KernelGenerator = (spec, caps) => {
    const plan = generateKernel(spec, caps);
    if (spec.node.op === 'matmul') headers.push(...plan.dispatches.map((x) => x.code.split('\n').find((l) => /(tiled|skinny) matmul/.test(l)) ?? ''));
    return plan;
  };
  await (await compile(g, d, { ...opts, generator })).dispose();
  return headers;
}

const tileOf = (name: string) => {
  const c = MATMUL_CONFIG_BY_NAME.get(name) ?? expect.unreachable(name);
  return `tile ${c.bm}x${c.bn}x${c.bk}${c.db ? ' double-buffered' : ''}${c.unroll ? ', k unrolled' : ''}, ${c.tm}x${c.tn} per thread`;
};

describe('shipped matmul tables at compile', () => {
  it("apply on their adapter's key and nowhere else; user entries and shippedMatmulTuning: false win", async () => {
    expect(adapterKey(device)).not.toBe(H200.adapter);
    const heuristic = await matmulHeaders(device);
    expect(heuristic).toHaveLength(1);
    expect(heuristic[0]).not.toContain(tileOf(SHIPPED));

    const asH200 = relabelled(device, H200.adapter);
    expect(shippedMatmulTuning(asH200)).toBe(H200);
    expect(await matmulHeaders(asH200)).toEqual([expect.stringContaining(tileOf(SHIPPED))]);
    // off, or overridden by the user's entry (`default`: the heuristic; or another tiling)
    expect(await matmulHeaders(asH200, { shippedMatmulTuning: false })).toEqual(heuristic);
    expect(await matmulHeaders(asH200, { matmulTuning: { [KEY]: 'default' } })).toEqual(heuristic);
    expect(await matmulHeaders(asH200, { matmulTuning: { [KEY]: '32x32x16/4x4' } })).toEqual([expect.stringContaining(tileOf('32x32x16/4x4'))]);
    // fp32 measurements: not part of a mixed-precision compile's table
    expect(matmulTuningOf(asH200, { precision: 'mixed' })).toBeUndefined();
    // asked for explicitly under mixed precision: an error, not a table silently left out
    expect(() => matmulTuningOf(asH200, { precision: 'mixed', shippedMatmulTuning: true })).toThrow(/shippedMatmulTuning: true .* precision: 'mixed'/);
    expect(matmulTuningOf(asH200, { precision: 'mixed', shippedMatmulTuning: false })).toBeUndefined();
    expect(matmulTuningOf(asH200, {})).toEqual(H200.tuning);

    // the same adapter with another driver version: no table, the heuristic
    expect(await matmulHeaders(relabelled(device, H200.adapter.replace(/580\.159\.04/, '580.160.01')))).toEqual(heuristic);
  });

  const own = shippedMatmulTuning(device);
  it.runIf(own !== undefined)("this machine's adapter runs its own shipped table (llvmpipe, SwiftShader), and the result is right", async () => {
    const table = own ?? expect.unreachable();
    const [key, name] = Object.entries(table.tuning).find(([k]) => k.endsWith(':NT:b1')) ?? expect.unreachable('no A·Bᵀ entry');
    const [m, n, k] = key.split(':')[0].split('x').map(Number);
    expect(await matmulHeaders(device, {}, [m, n, k])).toEqual([expect.stringContaining(tileOf(name))]);
    expect((await matmulHeaders(device, { shippedMatmulTuning: false }, [m, n, k]))[0]).not.toContain(tileOf(name));
    // the shipped tiling computes the product (checked against the interpreter)
    const g = new Graph();
    g.output('y', g.matmul(g.input('a', [m, k]), g.input('b', [n, k]), { transB: true }));
    const feeds = { a: { shape: [m, k], dtype: 'f32' as const, data: randoms(m * k, 5) }, b: { shape: [n, k], dtype: 'f32' as const, data: randoms(n * k, 6) } };
    const session = await compile(g, device);
    const y = (await session.step(feeds, { read: ['y'] })).outputs.y.data;
    const want = interpret(g, feeds).outputs.y.data;
    for (let i = 0; i < want.length; i++) expect(Math.abs(y[i] - want[i])).toBeLessThan(1e-3 * Math.sqrt(k));
    await session.dispose();
  });

  it('is not applied on a device created with lower limits than an entry needs', async () => {
    const limited = await createDevice({ limitCaps: { maxComputeInvocationsPerWorkgroup: 128 } });
    try {
      const asH200 = relabelled(limited, H200.adapter);
      expect(Object.values(H200.tuning)).toContain('128x128x16/8x8+u'); // 256 invocations
      expect(shippedMatmulTuning(asH200)).toBeUndefined();
      expect(await matmulHeaders(asH200)).toEqual(await matmulHeaders(limited));
    } finally {
      limited.destroy();
    }
  });
});
