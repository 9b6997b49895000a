// The f16 conversion of generated WGSL, loaded on demand with the mixed-precision code (mixedKernels.ts;
// f16Storage.ts decides which bindings are f16 and calls it): declares those buffers `array<f16>`, converts their
// loads to f32 and their stores back to f16, and adds `enable f16;`.

import { isElementwise, type OpKind } from '@neura/ir';
import type { Dispatch, KernelPlan, KernelSpec } from './kernel.js';
import { describeSpec, kernelError } from './wgsl.js';

/**
 * Ops whose built-in generators read and write their tensors only as `name[index]` (no atomics, bit casts or
 * pointers), so the pass below gives them f16 storage. Attention, convolution, pooling and the losses are not here
 * yet: their f16 tensors raise a KernelError (the autocast policy casts to f32 around them).
 */
const F16_OPS: ReadonlySet<OpKind> = new Set<OpKind>([
  'where',
  'cast',
  'sum',
  'mean',
  'reduceMax',
  'reduceMin',
  'transpose',
  'expand',
  'slice',
  'pad',
  'concat',
  'gather',
  'matmul',
  'fusedMatmul',
  'matmulPartials',
  'matmulEpilogue',
  'pointwise',
  'pointwiseMulti',
  'pointwiseMultiTensor',
  'pointwiseReduce',
  'pointwiseReduceMulti',
  'rowwise',
  'rowwiseMulti',
]);

/** Whether the built-in kernel of `op` can read and write f16 tensors. */
export function takesF16(op: OpKind): boolean {
  return F16_OPS.has(op) || isElementwise(op);
}

/**
 * `plan` with the bindings flagged in `f16` (per dispatch) stored as f16 and the operands `rounded` read rounded to
 * f16; `builtIn`: the plan comes from a built-in generator (a user's kernel with an f16 tensor is an error: it was
 * written for f32).
 */
export function f16Plan(spec: KernelSpec, plan: KernelPlan, builtIn: boolean, f16: readonly (readonly boolean[])[], rounded: readonly number[]): KernelPlan {
  const op = spec.node.op;
  if (!builtIn || !takesF16(op))
    kernelError(spec, `${builtIn ? `the ${op} kernel` : `the user kernel registered for ${op}`} does not take f16 tensors yet (${describeSpec(spec)}): cast them to f32 around it`);
  return { ...plan, dispatches: plan.dispatches.map((d, i) => f16Dispatch(spec, d, f16[i], rounded)) };
}

/** How the loads of a buffer are converted: `load` wraps a load, `store` is the stored type (a load inside its constructor stays direct). */
export interface AccessConversion {
  /** The value of a load as the kernel computes with it. */
  readonly load: (access: string) => string;
  /** The storage type: a store is converted to it, and a load already inside its constructor is left as it is. */
  readonly store: string;
}

const DECL = /@group\(0\) @binding\((\d+)\) var<storage, (read|read_write)> (\w+): array<([^;]+)>;/g;

/**
 * One dispatch with its f16 bindings declared and accessed as f16, and the loads of operands `rounded` (f32 buffers
 * read rounded to f16: `f32(f16(x))`, or direct inside an `f16(…)` staging conversion).
 */
function f16Dispatch(spec: KernelSpec, d: Dispatch, isF16: readonly boolean[], rounded: readonly number[]): Dispatch {
  const vars = new Map<string, AccessConversion>();
  let code = d.code.replace(DECL, (line, index: string, _access, name: string, element: string) => {
    const b = d.bindings[Number(index)];
    const round = b?.source.kind === 'input' && rounded.includes(b.source.index);
    if (!isF16[Number(index)] && !round) return line;
    const vec = /^vec([234])<f32>$/.exec(element);
    if (element !== 'f32' && !vec) kernelError(spec, `binding ${index} (${name}) holds an ${round ? 'operand read rounded to f16' : 'f16 tensor'}, but the kernel declares it array<${element}>`);
    const store = vec ? `vec${vec[1]}<f16>` : 'f16';
    if (round) {
      vars.set(name, { load: (x) => `${element}(${store}(${x}))`, store });
      return line;
    }
    vars.set(name, { load: (x) => `${element}(${x})`, store });
    return line.replace(`array<${element}>`, `array<${store}>`);
  });
  const declared = [...d.code.matchAll(DECL)].map((m) => Number(m[1]));
  isF16.forEach((f, i) => {
    if (f && !declared.includes(i)) kernelError(spec, `binding ${i} holds an f16 tensor, but the kernel declares no storage array for it`);
  });
  code = convertF16Accesses(code, vars, (msg) => kernelError(spec, msg));
  if (!/^enable f16;/m.test(code)) code = code.replace(/^(?!\/\/)/m, 'enable f16;\n');
  return { ...d, code, bindings: d.bindings.map((b, i) => (isF16[i] ? { ...b, dtype: 'f16' } : b)) };
}

/** Index just past the `]` matching the `[` at `open`. */
function closing(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '[') depth++;
    else if (code[i] === ']' && --depth === 0) return i + 1;
  }
  return -1;
}

/** Index of the `;` ending the statement that continues at `from` (outside brackets and parentheses). */
function statementEnd(code: string, from: number): number {
  let depth = 0;
  for (let i = from; i < code.length; i++) {
    const c = code[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ';' && depth === 0) return i;
  }
  return -1;
}

/**
 * Rewrites every `name[i]` of an f16 buffer: a load becomes `f32(name[i])` (or its vector type), a store
 * `name[i] = f16(value)`, a compound store `name[i] = f16(f32(name[i]) op (value))`; a load already inside the
 * store type's constructor (`f16(name[i])`) stays a direct read. Pointers and bit casts are refused through `fail`.
 */
export function convertF16Accesses(code: string, vars: ReadonlyMap<string, AccessConversion>, fail: (msg: string) => never): string {
  if (vars.size === 0) return code;
  const names = [...vars.keys()];
  const re = new RegExp(`(?<![\\w.&])(${names.join('|')})\\[`, 'g');
  // a subgroup-matrix load takes the buffer itself (array<f16> is what it needs); any other pointer is refused
  const pointer = new RegExp(`(?<!&|subgroupMatrixLoad<[^;()]*>\\()&(?!&)\\s*(${names.join('|')})\\b|bitcast<[^>]+>\\((${names.join('|')})\\[`);
  const bad = pointer.exec(code);
  if (bad) fail(`the kernel takes a pointer to or bit-casts the f16 buffer ${bad[1] ?? bad[2]}, which f16 storage cannot convert`);
  let out = '';
  let pos = 0;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const { load, store } = vars.get(m[1]) as AccessConversion;
    const end = closing(code, m.index + m[1].length);
    if (end < 0) fail(`unbalanced brackets after ${m[1]}[ in the generated WGSL`);
    const access = code.slice(m.index, end);
    const assign = /^\s*([-+*/]?)=(?!=)/.exec(code.slice(end));
    out += code.slice(pos, m.index);
    if (assign) {
      const rhsFrom = end + assign[0].length;
      const stop = statementEnd(code, rhsFrom);
      if (stop < 0) fail(`no ';' after the store to ${m[1]} in the generated WGSL`);
      const rhs = convertF16Accesses(code.slice(rhsFrom, stop).trim(), vars, fail);
      const value = assign[1] ? `${load(access)} ${assign[1]} (${rhs})` : rhs;
      out += `${access} = ${store}(${value})`;
      pos = stop;
    } else {
      const direct = code.slice(0, m.index).endsWith(`${store}(`) && code[end] === ')';
      out += direct ? access : load(access);
      pos = end;
    }
    re.lastIndex = pos;
  }
  return out + code.slice(pos);
}
