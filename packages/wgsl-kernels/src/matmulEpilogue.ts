// The matmul epilogue hook (`matmulEpilogue`): any pointwise expression of the product and extra operands (a
// bias, a residual, a GELU, a scale) applied to each product element before it is stored, so the product is
// never written. matmul.ts's plans (tiled, split-K's reduction, skinny) call `at(v, index)` where they store;
// everything else (the extra operands' bindings, their broadcast loads, the WGSL helpers) lives here. The
// quantized matmuls (`matmulQ8`, `matmulQ4` with an `expr`) use it too, through `shaderParts` (extras from operand 3).
// Must compute what the interpreter does: the product rounded to f32, then the expression in f32 per op.

import { type Binding, isSpecOf, type KernelSpec } from './kernel.js';
import type { DType } from '@neura/ir';
import { fmtPwExpr } from '@neura/ir';
import { operandLoads } from './elementwise.js';
import { declareLiterals, literalsBinding, literalTable } from './literals.js';
import { emitPwExpr } from './pointwise.js';
import { emitHelpers, HELPERS, type HelperName } from './scalarOps.js';
import { type BufferVar, inputVar } from './shader.js';
import { indent, kernelError, wgslType } from './wgsl.js';

/** The epilogue of a matmul kernel: extra bindings, module-scope WGSL, and the call at a stored element. */
export interface MatmulEpilogueHook {
  /** The extra operands' bindings, declared from binding index `first` on, and the epilogue function. */
  declare(first: number): { bindings: Binding[]; decl: string[] };
  /** The f32 epilogue of product value `v` (f32) at flat output index `index` (u32, batch offset included). */
  at(v: string, index: string): string;
  /** For header comments, e.g. `epilogue (geluTanh (add $0 $1))`. */
  readonly what: string;
  /**
   * The extra operands as buffers and the epilogue function with its literal placeholders, for a kernel built with
   * `shaderDispatch` (which binds the literal table after every buffer).
   */
  shaderParts(): { buffers: BufferVar[]; decls: string[] };
}

const f32Of = (v: string, dtype: DType) => (wgslType(dtype) === 'f32' ? v : `f32(${v})`); // f16 loads arrive as f32
const calls = (code: string, fn: string) => new RegExp(`\\b${fn}\\(`).test(code);

/**
 * The hook of a `matmulEpilogue` node or a quantized matmul with an `expr`; undefined for `matmul` / `fusedMatmul`
 * (their bias and relu stay in matmul.ts) and a quantized matmul without one.
 */
export function matmulEpilogueHook(spec: KernelSpec): MatmulEpilogueHook | undefined {
  const quant = isSpecOf(spec, 'matmulQ8', 'matmulQ4');
  const expr = isSpecOf(spec, 'matmulEpilogue', 'matmulQ8', 'matmulQ4') ? spec.node.attrs.expr : undefined;
  if (!expr) return undefined;
  const extra0 = quant ? 3 : 2; // the operand index of extra 0
  const extras = spec.inputs.slice(extra0);
  const used = new Set<number>();
  const e = emitPwExpr(
    expr,
    (i) => {
      if (i === 0) return 'prod';
      if (i - 1 >= extras.length) kernelError(spec, `the epilogue reads $${i}, but there are ${extras.length} extra operands`);
      used.add(i - 1);
      return f32Of(`v${i - 1}`, extras[i - 1].dtype);
    },
  );
  const order = [...used].sort((a, b) => a - b);
  const names = order.map((k) => `ep${k}`);
  const loads = operandLoads(
    extras,
    order.map((k) => [k]),
    names,
    used,
    spec.node.shape,
  );
  // the expression's float literals are read from a uniform table bound after the extra operands (literals.ts)
  const raw = `fn epilogue(prod: f32, o: u32) -> f32 {
${indent([...loads, e.code, `return ${e.result};`].filter(Boolean).join('\n'))}
}`;
  const { code: fn, data: literals } = literalTable(raw);
  const helpers = (Object.keys(HELPERS) as HelperName[]).filter((h) => calls(fn, h));
  return {
    declare(first) {
      const bindings: Binding[] = order.map((k) => ({ source: { kind: 'input', index: k + extra0 }, access: 'read', dtype: extras[k].dtype }));
      const decl = order.map((k, j) => `@group(0) @binding(${first + j}) var<storage, read> ${names[j]}: array<${wgslType(extras[k].dtype)}>;`);
      if (literals) {
        decl.push(declareLiterals(first + bindings.length, literals));
        bindings.push(literalsBinding(literals));
      }
      const h = emitHelpers(new Set(helpers));
      return { bindings, decl: [...decl, ...(h ? [h] : []), fn] };
    },
    at: (v, index) => `epilogue(${v}, ${index})`,
    what: `epilogue ${fmtPwExpr(expr)}`,
    shaderParts: () => ({ buffers: order.map((k, j) => inputVar(spec, k + extra0, names[j])), decls: [raw] }),
  };
}
