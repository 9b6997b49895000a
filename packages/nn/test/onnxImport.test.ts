// importOnnx against an independent runtime: each fixture model (tooling/fixtures/onnx_fixtures.py: torch
// exports and hand-built onnx graphs) runs in onnxruntime-node (CPU) and in ir's interpreter on the imported
// graph, on the same inputs; outputs must agree within 1e-4. Also the errors: unsupported op, truncated file,
// dynamic shapes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { interpret, type TensorValue } from '@neura/ir';
import { loadOnnxFile } from '@neura/nn/node';
import { importOnnx, OnnxImportError } from '@neura/nn/onnx';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';

const fixture = (name: string) => new Uint8Array(readFileSync(fileURLToPath(new URL(`../../../tooling/fixtures/onnx/${name}.onnx`, import.meta.url))));

/** Deterministic inputs in [-2, 2). */
function values(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 4 - 2;
  });
}

/** Runs a model in onnxruntime and in the interpreter on the imported graph; returns both, by output name. */
async function both(name: string, feeds: Record<string, TensorValue>, opts: Parameters<typeof importOnnx>[1] = {}) {
  const bytes = fixture(name);
  const session = await ort.InferenceSession.create(bytes);
  const ortFeeds: Record<string, ort.Tensor> = {};
  for (const [k, v] of Object.entries(feeds))
    ortFeeds[k] = v.dtype === 'f32' ? new ort.Tensor('float32', Float32Array.from(v.data), [...v.shape]) : new ort.Tensor('int64', BigInt64Array.from(Array.from(v.data, BigInt)), [...v.shape]);
  const ref = await session.run(ortFeeds);
  const imp = importOnnx(bytes, opts);
  const ours = interpret(imp.graph, feeds, imp.initialState, 'f32').outputs;
  return { ref, ours, imp };
}

function expectSame(ref: ort.InferenceSession.OnnxValueMapType, ours: Record<string, TensorValue>) {
  expect(Object.keys(ours).sort()).toEqual(Object.keys(ref).sort());
  for (const [k, r] of Object.entries(ref)) {
    const o = ours[k];
    expect(o.shape, k).toEqual(r.dims.map(Number));
    const want = Array.from(r.data as ArrayLike<number | bigint>, Number);
    const got = Array.from(o.data);
    for (let i = 0; i < want.length; i++) expect(Math.abs(got[i] - want[i]), `${k}[${i}]: ${got[i]} vs ${want[i]}`).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(want[i])));
  }
}

const f32 = (shape: number[], seed: number): TensorValue => ({ shape, dtype: 'f32', data: values(shape.reduce((a, b) => a * b, 1), seed) });

describe('importOnnx matches onnxruntime', () => {
  it('imports a torch MLP with an erf GELU and log-softmax (Gemm, Erf, opset 13)', async () => {
    const { ref, ours, imp } = await both('mlp', { x: f32([3, 6], 1) });
    expectSame(ref, ours);
    expect(imp.params.sort()).toEqual(['l1.bias', 'l1.weight', 'l2.bias', 'l2.weight']);
    expect(imp.graph.nodes.filter((n) => n.op === 'param').length).toBe(4);
  });

  it('imports a small CNN: Conv (groups, stride, dilation, pads), BatchNorm, MaxPool, Pad + AveragePool, GlobalAveragePool', async () => {
    const { ref, ours, imp } = await both('cnn', { x: f32([2, 3, 8, 8], 2) });
    expectSame(ref, ours);
    // BatchNorm's running statistics stay non-trainable state, as PyTorch's buffers
    expect(imp.params.sort()).toEqual(['bn.bias', 'bn.weight', 'c1.bias', 'c1.weight', 'c2.bias', 'c2.weight', 'fc.bias', 'fc.weight']);
    expect(imp.graph.leaves('state').map((n) => n.attrs.name).sort()).toEqual(['bn.running_mean', 'bn.running_var']);
  });

  it('imports a transformer block whose layer norm is ReduceMean-based (opset 13)', async () => {
    const { ref, ours } = await both('block13', { x: f32([2, 5, 8], 3) });
    expectSame(ref, ours);
  });

  it('imports the same block with LayerNormalization (opset 17)', async () => {
    const { ref, ours } = await both('block17', { x: f32([2, 5, 8], 3) });
    expectSame(ref, ours);
  });

  for (const opset of [13, 21])
    it(`covers the remaining primitives at opset ${opset} (Slice, Squeeze, Where, Gather, Shape, Reduce* …)`, async () => {
      const idx: TensorValue = { shape: [2], dtype: 'i32', data: Int32Array.from([1, -1]) };
      const { ref, ours } = await both(`ops${opset}`, { x: f32([2, 3, 4], 4), idx });
      expectSame(ref, ours);
    });

  it('imports ONNX-only window forms: uncounted AveragePool pads, asymmetric MaxPool pads, Conv SAME_UPPER (opset 19)', async () => {
    const { ref, ours } = await both('pool19', { x: f32([1, 2, 7, 7], 7) });
    expectSame(ref, ours);
  });

  it('keeps initializers out of the trainable set with initializers: constants', async () => {
    const { ref, ours, imp } = await both('mlp', { x: f32([3, 6], 5) }, { initializers: 'constants' });
    expectSame(ref, ours);
    expect(imp.params).toEqual([]);
    expect(imp.graph.nodes.filter((n) => n.op === 'param')).toEqual([]);
  });

  it('needs concrete shapes for a dynamic batch axis, and runs with them', async () => {
    expect(() => importOnnx(fixture('mlp-dynamic'))).toThrow(/input 'x' has a dynamic shape \[batch, 6\].*inputShapes/);
    const { ref, ours } = await both('mlp-dynamic', { x: f32([5, 6], 6) }, { inputShapes: { x: [5, 6] } });
    expectSame(ref, ours);
  });
});

describe('loadOnnxFile', () => {
  it('reads a file from disk and imports it', async () => {
    const imp = await loadOnnxFile(fileURLToPath(new URL('../../../tooling/fixtures/onnx/mlp.onnx', import.meta.url)));
    expect(imp.opset).toBe(13);
    expect(imp.outputs.y.shape).toEqual([3, 4]);
    await expect(loadOnnxFile('/nonexistent/model.onnx')).rejects.toThrow(/ENOENT.*nonexistent/);
  });
});

describe('importOnnx errors', () => {
  it('names the op type, node and opset of an unsupported op', () => {
    expect(() => importOnnx(fixture('unsupported'))).toThrow(OnnxImportError);
    expect(() => importOnnx(fixture('unsupported'))).toThrow("unsupported op 'NonZero' at node 'where_nonzero' (NonZero, opset 13)");
  });

  it('says a truncated file is malformed', () => {
    const bytes = fixture('cnn');
    expect(() => importOnnx(bytes.subarray(0, bytes.length - 40))).toThrow(/malformed ONNX file .*protobuf decoding failed/);
    expect(() => importOnnx(new Uint8Array())).toThrow(/the file is empty/);
  });
});
