// How a measured matmul table (`MatmulTuning`, shape key → configuration name) reaches kernel generation and how
// measurements are keyed per adapter (shipped tables per adapter and driver: shippedMatmulTuning.ts). A table is
// only ever applied whole or refused with an error.

import type { Graph } from '@neura/ir';
import { checkMatmulTuning, type DeviceCaps, type MatmulShape, type MatmulTuning, matmulShapeKey, matmulShapeOf } from '@neura/wgsl-kernels';
import type { NeuraDevice } from './device.js';

/** The caps kernels are planned with under a tuning table; every entry is checked against the device first. */
export function tunedCaps(caps: DeviceCaps, tuning: MatmulTuning | undefined): DeviceCaps {
  if (!tuning || Object.keys(tuning).length === 0) return caps;
  checkMatmulTuning(tuning, caps);
  return { ...caps, matmulTuning: tuning };
}

/** The adapter a measurement belongs to: vendor, architecture, device, description (driver) and backend. */
export function adapterKey(device: NeuraDevice): string {
  const a = device.adapterInfo;
  return `${a.vendor}|${a.architecture}|${a.device}|${a.description}|${a.backend}`;
}

/** The matmul shapes of a graph's live matmul nodes (what a tuning table for it is keyed by), each once. */
export function matmulShapesOf(graph: Graph): MatmulShape[] {
  const seen = new Map<string, MatmulShape>();
  for (const id of graph.live()) {
    const n = graph.nodes[id];
    if (n.op !== 'matmul' && n.op !== 'fusedMatmul' && n.op !== 'matmulEpilogue') continue;
    const s = matmulShapeOf(n.shape, graph.nodes[n.inputs[0]].shape, n.attrs.transA, n.attrs.transB); // as the kernel keys it
    seen.set(matmulShapeKey(s), s);
  }
  return [...seen.values()];
}
