// importOnnx: an ONNX model (opset 13–21) -> a neura Graph for inference or fine-tuning. Initializers become
// param leaves (trainable, default) or state leaves whose initial values are returned for `initialState`; static
// shape arithmetic (Shape, Gather, Concat … of constants) is folded at import with ir's interpreter, never guessed.

import { Graph, interpret, type Shape, type Tensor, type TensorValue } from '@neura/ir';
import { OnnxImportError } from './onnxError.js';
import { attribute, decodeOnnxModel, type OnnxNode, neuraDType, dtypeName, tensorValue, valueType } from './onnxModel.js';
import { ONNX_OPS, type OpContext, type OpResult } from './onnxOps.js';

/** The opsets of the default ONNX domain that the importer accepts. */
export const ONNX_OPSETS = { min: 13, max: 21 } as const;

/** Options of `importOnnx`. */
export interface OnnxImportOptions {
  /** Concrete shapes for graph inputs, required for inputs with dynamic (symbolic or unknown) dimensions. */
  inputShapes?: Readonly<Record<string, readonly number[]>>;
  /**
   * How float initializers enter the graph: `params` (default) as trainable param leaves, `constants` as
   * non-trainable state leaves. Either way their values come back in `initialState`.
   */
  initializers?: 'params' | 'constants';
}

/** What `importOnnx` returns. */
export interface OnnxImport {
  graph: Graph;
  /** The graph's input leaves, by ONNX input name. */
  inputs: Record<string, Tensor>;
  /** The model's results, by ONNX output name (also the graph's named outputs). */
  outputs: Record<string, Tensor>;
  /** Initial values of every leaf the import made from the file (params and constants), by leaf name. */
  initialState: Record<string, TensorValue>;
  /**
   * Names of the trainable param leaves: float initializers with `initializers: 'params'`, except
   * BatchNormalization's running statistics, which stay non-trainable state as in PyTorch.
   */
  params: string[];
  /** The default-domain opset the model declares. */
  opset: number;
}

const FOLD_LIMIT = 1 << 16;

interface Val {
  t?: Tensor;
  v?: TensorValue;
}

const numel = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** Imports an ONNX model from its bytes; see `OnnxImportOptions`. Errors are OnnxImportErrors naming the problem. */
export function importOnnx(bytes: Uint8Array, opts: OnnxImportOptions = {}): OnnxImport {
  const model = decodeOnnxModel(bytes);
  const og = model.graph!;
  const opsetEntry = (model.opsetImport ?? []).find((o) => !o.domain || o.domain === 'ai.onnx');
  const opset = opsetEntry ? Number(opsetEntry.version) : Number.NaN;
  if (!(opset >= ONNX_OPSETS.min && opset <= ONNX_OPSETS.max))
    throw new OnnxImportError(`importOnnx: the model declares opset ${Number.isNaN(opset) ? '(none)' : opset} of the default domain; supported: ${ONNX_OPSETS.min}–${ONNX_OPSETS.max}`);
  const trainable = (opts.initializers ?? 'params') === 'params';
  const g = new Graph({ recordSites: false });
  const vals = new Map<string, Val>();
  const initialState: Record<string, TensorValue> = {};
  const params: string[] = [];
  const inits = new Map<string, TensorValue>();
  const leafNames = new Set<string>();

  // BatchNormalization's running mean and variance are statistics, not weights (PyTorch keeps them as buffers)
  const buffers = new Set((og.node ?? []).flatMap((n) => (n.opType === 'BatchNormalization' ? (n.input ?? []).slice(3, 5) : [])));
  for (const t of og.initializer ?? []) {
    const name = t.name ?? '';
    if (!name) throw new OnnxImportError('importOnnx: malformed ONNX file: an initializer has no name');
    const v = tensorValue(t, 'initializer');
    inits.set(name, v);
    // integer tensors (shapes, axes, indices) and everything in constants mode stay host values; float
    // initializers in params mode are weights: a leaf, never folded into constants
    vals.set(name, v.dtype === 'f32' && trainable && !buffers.has(name) ? {} : { v });
  }

  let hostCount = 0;
  /** A host value as a graph tensor: a filled constant when uniform, else a non-trainable state leaf. */
  const host = (v: TensorValue, hint: string): Tensor => {
    const d = v.data;
    if (d.length > 0 && d.every((x) => x === d[0] || (Number.isNaN(x) && Number.isNaN(d[0])))) return g.constant(d[0], v.shape, v.dtype);
    let name = `onnx.const.${hint}`;
    while (leafNames.has(name) || inits.has(name)) name = `onnx.const.${hint}.${++hostCount}`;
    leafNames.add(name);
    initialState[name] = v;
    return g.state(name, v.shape, { kind: 'zeros' }, v.dtype);
  };
  const tensorOf = (name: string, user: string): Tensor => {
    const val = vals.get(name);
    if (!val) throw new OnnxImportError(`importOnnx: ${user} uses '${name}', which no earlier node, input or initializer defines`);
    if (val.t) return val.t;
    const init = inits.get(name);
    if (init && !val.v) {
      val.t = g.param(name, init.shape, { kind: 'zeros' });
      params.push(name);
    } else if (init && init.dtype === 'f32' && numel(init.shape) > 1) {
      // constants mode: a weight is a state leaf under its own name, so loadStateDict-style names still match
      val.t = g.state(name, init.shape, { kind: 'zeros' }, init.dtype);
    } else {
      val.t = host(val.v as TensorValue, name.replace(/[^\w.]/g, '_'));
      return val.t;
    }
    leafNames.add(name);
    initialState[name] = init;
    return val.t;
  };

  const inputs: Record<string, Tensor> = {};
  for (const vi of og.input ?? []) {
    const name = vi.name ?? '';
    if (inits.has(name)) continue; // an initializer listed as input (older exporters): a default value
    const { elemType, dims } = valueType(vi);
    const dtype = neuraDType(elemType);
    if (!dtype) throw new OnnxImportError(`importOnnx: input '${name}' has element type ${dtypeName(elemType)}, which neura does not support`);
    const given = opts.inputShapes?.[name];
    let shape: Shape;
    if (given) {
      if (dims && (dims.length !== given.length || dims.some((d, i) => typeof d === 'number' && d !== given[i])))
        throw new OnnxImportError(`importOnnx: inputShapes['${name}'] = [${given}] does not match the model's shape [${dims}]`);
      shape = [...given];
    } else if (!dims || dims.some((d) => typeof d !== 'number')) {
      throw new OnnxImportError(`importOnnx: input '${name}' has a dynamic shape [${dims?.join(', ') ?? 'unknown rank'}]; pass concrete shapes as inputShapes: { '${name}': [...] }`);
    } else shape = dims as number[];
    inputs[name] = g.input(name, shape, dtype);
    vals.set(name, { t: inputs[name] });
  }
  for (const name of Object.keys(opts.inputShapes ?? {}))
    if (!inputs[name]) throw new OnnxImportError(`importOnnx: inputShapes names '${name}', which is not an input of the model (inputs: ${Object.keys(inputs).join(', ')})`);

  for (const node of og.node ?? []) {
    const where = `node '${node.name ?? ''}' (${node.opType}, opset ${opset})`;
    if (node.domain && node.domain !== 'ai.onnx') throw new OnnxImportError(`importOnnx: unsupported op '${node.opType}' of domain '${node.domain}' at ${where}`);
    const rule = ONNX_OPS[node.opType ?? ''];
    if (!rule) throw new OnnxImportError(`importOnnx: unsupported op '${node.opType}' at ${where}`);
    const ins = node.input ?? [];
    for (const n of ins) if (n && !vals.has(n)) throw new OnnxImportError(`importOnnx: ${where} uses '${n}', which no earlier node, input or initializer defines`);
    const knownIn = ins.map((n) => (n ? vals.get(n)?.v : undefined));
    const foldable = ins.length > 0 && ins.every((n, i) => !n || knownIn[i]) && knownIn.reduce((a, v) => a + (v ? v.data.length : 0), 0) <= FOLD_LIMIT;
    let result: OpResult;
    try {
      if (foldable) result = fold(node, opset, knownIn);
      else result = rule(context(node, opset, g, (i) => tensorOf(ins[i], where), (i) => (ins[i] ? (vals.get(ins[i])?.v ?? (trainable ? undefined : inits.get(ins[i]))) : undefined), (v) => host(v, `${node.name}`), where, inits));
    } catch (e) {
      if (e instanceof OnnxImportError) throw e;
      throw new OnnxImportError(`importOnnx: ${where}: ${(e as Error).message}`, { cause: e });
    }
    const outs = Array.isArray(result) ? result : [result];
    (node.output ?? []).forEach((name, i) => {
      if (!name) return;
      const r = outs[i];
      if (!r) throw new OnnxImportError(`importOnnx: ${where} declares output '${name}' that the importer does not produce`);
      vals.set(name, 'op' in r ? { t: r } : { v: r });
    });
  }

  const outputs: Record<string, Tensor> = {};
  for (const vi of og.output ?? []) {
    const name = vi.name ?? '';
    outputs[name] = g.output(name, tensorOf(name, `graph output '${name}'`));
  }
  return { graph: g, inputs, outputs, initialState, params, opset };
}

/** Runs one node on host values: its rule on a scratch graph of inputs, then ir's interpreter (float32). */
function fold(node: OnnxNode, opset: number, known: (TensorValue | undefined)[]): OpResult {
  const scratch = new Graph({ recordSites: false });
  const feeds: Record<string, TensorValue> = {};
  let hosts = 0;
  const leaf = (v: TensorValue): Tensor => {
    const name = `in${hosts++}`;
    feeds[name] = v;
    return scratch.input(name, v.shape, v.dtype);
  };
  const where = `node '${node.name ?? ''}' (${node.opType}, opset ${opset})`;
  const result = ONNX_OPS[node.opType ?? ''](context(node, opset, scratch, (i) => leaf(known[i] as TensorValue), (i) => known[i], leaf, where));
  const outs = Array.isArray(result) ? result : [result];
  const tensors = outs.filter((r): r is Tensor => 'op' in r);
  if (tensors.length === 0) return result;
  for (const [i, t] of tensors.entries()) scratch.output(`out${i}`, t);
  const run = interpret(scratch, feeds, {}, 'f32');
  let k = 0;
  return outs.map((r) => ('op' in r ? run.outputs[`out${k++}`] : r));
}

function context(
  node: OnnxNode,
  opset: number,
  g: Graph,
  input: (i: number) => Tensor,
  known: (i: number) => TensorValue | undefined,
  host: (v: TensorValue) => Tensor,
  where: string,
  inits?: ReadonlyMap<string, TensorValue>,
): OpContext {
  const ins = node.input ?? [];
  const fail = (why: string): never => {
    throw new OnnxImportError(`importOnnx: ${where}: ${why}`);
  };
  const has = (i: number) => i < ins.length && ins[i] !== '';
  const attr = (name: string) => attribute(node, name);
  return {
    g,
    opType: node.opType ?? '',
    opset,
    arity: ins.length,
    outputs: (node.output ?? []).filter((n) => n).length,
    has,
    input: (i) => (has(i) ? input(i) : fail(`input ${i} is required`)),
    known: (i) => (has(i) ? known(i) : undefined),
    values: (i, what) => {
      // attribute-like operands (Clip's bounds, Pad's value) may be float initializers: read, never trained
      const v = has(i) ? (known(i) ?? inits?.get(ins[i])) : undefined;
      if (!v) return fail(`${what} (input ${i}) must be static (a constant, an initializer or computed from static shapes)`);
      return Array.from(v.data);
    },
    // an initializer's shape without making it a leaf (Shape of a weight must not add an unused param)
    shape: (i) => (has(i) ? (known(i)?.shape ?? inits?.get(ins[i])?.shape ?? input(i).shape) : fail(`input ${i} is required`)),
    int: (name, dflt) => {
      const a = attr(name);
      return typeof a === 'number' ? a : dflt;
    },
    ints: (name) => {
      const a = attr(name);
      return Array.isArray(a) ? a : undefined;
    },
    float: (name, dflt) => {
      const a = attr(name);
      return typeof a === 'number' ? a : dflt;
    },
    floats: (name) => {
      const a = attr(name);
      return Array.isArray(a) ? a : undefined;
    },
    str: (name, dflt) => {
      const a = attr(name);
      return typeof a === 'string' ? a : dflt;
    },
    tensor: (name) => {
      const a = attr(name);
      return a !== undefined && typeof a === 'object' && !Array.isArray(a) ? a : undefined;
    },
    host,
    fail,
  };
}
