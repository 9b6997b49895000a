// batchMask: the forward graph of a training step rebuilt so that a batch smaller than the compiled one, padded to
// it, gives exactly the loss of its real rows. A hidden input (`BATCH_ROWS_INPUT`, 1 per real row, 0 per padded row)
// masks every reduction over the batch (the loss's sum or mean, nll's rows): padded rows then count for nothing in
// the loss or its gradients, and a mean divides by the real count. Must not change the caller's graph (it builds a
// new one). Invariant: an op that would let a padded row change a real row's value (a reduction over the batch
// whose result flows back into rows, as BatchNorm's batch statistics; a matmul contracting over rows; a reshape or
// slice that regroups rows) is refused with a BatchSizeError naming it: the analysis never guesses.

import { BINARY_OPS, Graph, type Node, type NodeId, numel, type Tensor, UNARY_OPS } from '@neura/ir';
import { BatchSizeError } from './errors.js';

/** The hidden f32 input [B] a step compiled with `batchInputs` reads: 1 for a real row, 0 for a padded one. */
export const BATCH_ROWS_INPUT = 'batchRows';

/** Where the batch sits in a tensor: along `axis`, whose extent is B·per, index j belonging to batch row ⌊j/per⌋. */
interface Rows {
  readonly axis: number;
  readonly per: number;
}

/** A node's relation to the batch: none (undefined), per-row values, or a masked reduction over the rows. */
type BatchState = Rows | { readonly reduced: Node } | undefined;

const isRows = (s: BatchState): s is Rows => s !== undefined && 'axis' in s;
const isReduced = (s: BatchState): s is { reduced: Node } => s !== undefined && 'reduced' in s;
const ELEMENTWISE = new Set<string>([...UNARY_OPS, ...BINARY_OPS, 'where', 'cast', 'stopGradient', 'dropout', 'pointwise']);
const POOLS = new Set<string>(['maxPool2d', 'avgPool2d', 'maxPool2dIndices']);

/** The rebuilt forward graph and its masked loss. */
export interface MaskedBatchGraph {
  /** The copy of the forward graph, with the hidden `BATCH_ROWS_INPUT` input. */
  readonly graph: Graph;
  /** The loss over the real rows only. */
  readonly loss: Tensor;
}

/**
 * A copy of `forward` whose loss is exact for any number of real rows ≤ B under the hidden input
 * `BATCH_ROWS_INPUT`; `batchInputs` are the inputs whose axis 0 is the batch (all of extent B). Throws a
 * BatchSizeError naming the op where padded rows could not be kept out of the loss.
 */
export function maskedBatchGraph(forward: Graph, loss: Tensor, batchInputs: readonly string[], rows: number): MaskedBatchGraph {
  const B = rows;
  const out = new Graph({ recordSites: false });
  const map = new Map<NodeId, Tensor>();
  const state = new Map<NodeId, BatchState>();
  if (forward.byName(BATCH_ROWS_INPUT)) throw new BatchSizeError(`batchInputs: the graph already has a leaf named '${BATCH_ROWS_INPUT}', the hidden input of the row mask`);
  const mask = out.input(BATCH_ROWS_INPUT, [B], 'f32');
  const realRows = out.sum(mask);
  const refuse = (n: Node, why: string): never => {
    throw new BatchSizeError(
      `batchInputs: ${n.op}${n.site ? ` (built at ${n.site})` : ''} ${why}; padded rows would change the loss of the real ones, so this step cannot take fewer rows than compiled (compile one step per batch size instead)`,
    );
  };
  /** The mask broadcast to a tensor of `rank` axes with rows `r`: true on real rows. */
  const maskFor = (rank: number, r: Rows): Tensor => {
    let m = mask;
    if (r.per > 1) m = out.reshape(out.expand(out.reshape(m, [B, 1]), [B, r.per]), [B * r.per]);
    const shape = Array.from({ length: rank }, (_, i) => (i === r.axis ? B * r.per : 1));
    return out.gt(out.reshape(m, shape), 0.5);
  };

  for (const n of forward.nodes) {
    const ins = n.inputs.map((id) => state.get(id));
    const args = n.inputs.map((id) => map.get(id) as Tensor);
    const copy = (): Tensor => {
      // leaves through their builders, which register their names
      if (n.op === 'input') return out.input(n.attrs.name, n.shape, n.dtype);
      if (n.op === 'param') return out.param(n.attrs.name, n.shape, n.attrs.init);
      if (n.op === 'state') return out.state(n.attrs.name, n.shape, n.attrs.init, n.dtype);
      return out.node(n.op, args, n.attrs, n.inputs.length === 0 ? { shape: n.shape, dtype: n.dtype } : undefined);
    };
    let s: BatchState;
    let t: Tensor | undefined;
    const withRows = ins.map((x, i) => [x, i] as const).filter(([x]) => isRows(x)) as (readonly [Rows, number])[];
    const reduced = ins.find(isReduced);
    if (n.op === 'input' && batchInputs.includes(n.attrs.name)) s = { axis: 0, per: 1 };
    else if (withRows.length === 0) s = reduced; // batch-free, or arithmetic on masked reductions (the loss's div)
    else if (reduced) refuse(n, `combines per-row values with ${reduced.reduced.op} over the batch${reduced.reduced.site ? ` (built at ${reduced.reduced.site})` : ''} (batch statistics, as BatchNorm's in training mode)`);
    else {
      const [r0, i0] = withRows[0];
      const inShape = forward.get(n.inputs[i0]).shape;
      const rank = n.shape.length;
      /** Rows of operand i aligned to the output by broadcasting (trailing axes); refused if broadcast or misaligned. */
      const aligned = (): Rows => {
        let res: Rows | undefined;
        for (const [r, i] of withRows) {
          const sh = forward.get(n.inputs[i]).shape;
          const axis = r.axis + rank - sh.length;
          if (n.shape[axis] !== sh[r.axis]) refuse(n, 'broadcasts the batch axis');
          if (res && (res.axis !== axis || res.per !== r.per)) refuse(n, 'combines operands whose batch rows sit on different axes');
          res = { axis, per: r.per };
        }
        return res as Rows;
      };
      if (ELEMENTWISE.has(n.op) || n.op === 'expand') s = aligned();
      else if (n.op === 'sum' || n.op === 'mean' || n.op === 'reduceMax' || n.op === 'reduceMin') {
        const { axes, keepdims } = n.attrs as { axes: number[]; keepdims: boolean };
        if (!axes.includes(r0.axis)) s = { axis: keepdims ? r0.axis : r0.axis - axes.filter((a) => a < r0.axis).length, per: r0.per };
        else if (n.op === 'reduceMax' || n.op === 'reduceMin') refuse(n, 'reduces over the batch by max/min, which a mask cannot keep exact');
        else {
          const summed = out.sum(out.where(maskFor(inShape.length, r0), args[0], 0), axes, keepdims);
          if (n.op === 'sum') t = summed;
          else {
            const others = numel(axes.filter((a) => a !== r0.axis).map((a) => inShape[a]));
            t = out.div(summed, out.mul(realRows, r0.per * others));
          }
          s = { reduced: n };
        }
      } else if (n.op === 'nll') {
        if (withRows[0][1] !== 0 || r0.axis !== 0) refuse(n, 'has its batch rows on the labels only');
        const masked = out.nll(out.where(maskFor(2, r0), args[0], 0), args[1], 'sum');
        t = n.attrs.reduction === 'sum' ? masked : out.div(masked, out.mul(realRows, r0.per));
        s = { reduced: n };
      } else if (n.op === 'reshape') s = reshapeRows(inShape, r0, n.shape, B) ?? refuse(n, `regroups the batch rows (${fmt(inShape)} → ${fmt(n.shape)})`);
      else if (n.op === 'transpose') s = { axis: n.attrs.perm.indexOf(r0.axis), per: r0.per };
      else if (n.op === 'slice') {
        const { starts, ends, steps } = n.attrs;
        if (starts[r0.axis] !== 0 || ends[r0.axis] !== inShape[r0.axis] || steps[r0.axis] !== 1) refuse(n, 'slices the batch axis');
        s = r0;
      } else if (n.op === 'pad') {
        const { before, after, interior } = n.attrs;
        if (before[r0.axis] || after[r0.axis] || interior[r0.axis]) refuse(n, 'pads the batch axis');
        s = r0;
      } else if (n.op === 'concat') {
        if (withRows.length !== n.inputs.length) refuse(n, 'joins per-row values with batch-free ones');
        s = aligned();
        if (s.axis === n.attrs.axis) refuse(n, 'joins along the batch axis');
      } else if (n.op === 'oneHot' || n.op === 'logSoftmax' || n.op === 'cumsum' || n.op === 'argmax' || n.op === 'rope' || POOLS.has(n.op)) {
        const along = n.op === 'logSoftmax' || n.op === 'cumsum' || n.op === 'argmax' ? r0.axis === n.attrs.axis : n.op === 'rope' && r0.axis >= inShape.length - 2;
        if (along) refuse(n, 'works along the batch axis');
        if (POOLS.has(n.op) && r0.axis !== 0) refuse(n, 'has its batch rows off axis 0');
        s = n.op === 'argmax' && !n.attrs.keepdims && r0.axis > n.attrs.axis ? { axis: r0.axis - 1, per: r0.per } : r0;
      } else if (n.op === 'gather') {
        const { axis } = n.attrs;
        const idxRank = forward.get(n.inputs[1]).shape.length;
        if (withRows.length > 1) refuse(n, 'indexes per-row tables with per-row indices');
        if (i0 === 1) s = { axis: axis + r0.axis, per: r0.per }; // an embedding lookup of per-row ids
        else if (r0.axis === axis) refuse(n, 'indexes the batch axis');
        else s = { axis: r0.axis < axis ? r0.axis : r0.axis + idxRank - 1, per: r0.per };
      } else if (n.op === 'matmul') s = matmulRows(n as Node<'matmul'>, withRows, (i) => forward.get(n.inputs[i]).shape) ?? refuse(n, 'contracts over the batch rows');
      else if (n.op === 'attention') {
        if (withRows.length !== 3 && !(withRows.length === 1 && i0 === 0)) refuse(n, 'attends across the batch rows');
        s = aligned();
        if (s.axis >= rank - 2) refuse(n, 'has its batch rows on the sequence or feature axis');
      } else if (n.op === 'conv2d') {
        if (i0 !== 0 || withRows.length > 1 || r0.axis !== 0) refuse(n, 'has batch rows off the images\' axis 0');
        s = r0;
      } else refuse(n, 'is not known to keep the batch rows independent');
    }
    map.set(n.id, t ?? copy());
    state.set(n.id, s);
  }
  for (const [name, id] of forward.outputs) out.output(name, map.get(id) as Tensor);
  for (const u of forward.updates) {
    const v = state.get(u.value);
    if (isRows(v) || isReduced(v)) throw new BatchSizeError(`batchInputs: the update of '${leafNameOf(forward.get(u.state))}' depends on the batch rows (running statistics, as BatchNorm's in training mode); padded rows would change it, so this step cannot take fewer rows than compiled`);
    out.update(map.get(u.state) as Tensor, map.get(u.value) as Tensor);
  }
  const ls = state.get(loss.id);
  if (!isReduced(ls)) throw new BatchSizeError(`batchInputs: the loss does not reduce over the batch rows of ${batchInputs.map((n) => `'${n}'`).join(', ')} (no sum, mean or nll over them)`);
  return { graph: out, loss: map.get(loss.id) as Tensor };
}

/** Rows after a reshape that keeps every row's elements together; undefined when it regroups rows. */
function reshapeRows(inShape: readonly number[], r: Rows, outShape: readonly number[], B: number): Rows | undefined {
  // the axes up to the batch axis unchanged: what follows is regrouped within each row
  if (outShape.length > r.axis && inShape.slice(0, r.axis + 1).every((d, i) => outShape[i] === d)) return r;
  // nothing but 1s before the batch axis: row k is the k-th block of numel/B consecutive elements, on both sides
  if (numel(inShape.slice(0, r.axis)) !== 1) return undefined;
  let a = 0;
  while (a < outShape.length && outShape[a] === 1) a++;
  if (a === outShape.length || outShape[a] % B !== 0) return undefined;
  const per = outShape[a] / B;
  return per * numel(outShape.slice(a + 1)) === numel(inShape) / B ? { axis: a, per } : undefined;
}

/** Rows of a matmul's result: its operands' rows on M, N or leading axes (not the contracted K); undefined if contracted. */
function matmulRows(n: Node<'matmul'>, withRows: readonly (readonly [Rows, number])[], shapeOf: (i: number) => readonly number[]): Rows | undefined {
  const rank = n.shape.length;
  let res: Rows | undefined;
  for (const [r, i] of withRows) {
    const sh = shapeOf(i);
    const k = sh.length;
    const trans = i === 0 ? n.attrs.transA : n.attrs.transB;
    // operand a is [..., M, K] ([..., K, M] transposed), b is [..., K, N] ([..., N, K] transposed)
    const kAxis = i === 0 ? (trans ? k - 2 : k - 1) : trans ? k - 1 : k - 2;
    if (r.axis === kAxis) return undefined;
    const axis = r.axis < k - 2 ? r.axis + rank - k : i === 0 ? rank - 2 : rank - 1;
    if (n.shape[axis] !== sh[r.axis]) return undefined;
    if (res && (res.axis !== axis || res.per !== r.per)) return undefined;
    res = { axis, per: r.per };
  }
  return res;
}

const fmt = (s: readonly number[]) => `[${s.join(', ')}]`;
const leafNameOf = (n: Node) => (n.op === 'param' || n.op === 'state' || n.op === 'input' ? n.attrs.name : `node ${n.id}`);
