// WGSL for a fused pointwise expression (`PwExpr`): each distinct subexpression, keyed by its structure, becomes
// one `let`, in dependency order, so shared subtrees are computed once. Arithmetic is f32 throughout, exactly as
// `evalPwExpr` evaluates (every intermediate a float, rounded per op); the caller converts the final value.
// Must stay pure: the same expression always gives the same names and the same text.

import type { PwExpr } from '@neura/ir';
import { binaryF32, castF32, unaryF32 } from './scalarOps.js';
import { literal } from './literals.js';

/** The emitted statements, the f32 result expression and the number of arithmetic ops. */
export interface EmittedExpr {
  /** WGSL statements computing intermediate values. */
  readonly code: string;
  /** The WGSL expression of the f32 result. */
  readonly result: string;
  /** Number of arithmetic ops (for the cost model). */
  readonly ops: number;
}

/** Largest |c| for which `pow(x, c)` with a constant integer c becomes repeated multiplication. */
export const POW_UNROLL_LIMIT = 8;

/**
 * Emits `e` as WGSL. `input(i)` gives the f32 value of input i. Constants are `literal` placeholders (read at run
 * time from a uniform table, see literals.ts), which the dispatch's builder resolves.
 */
export function emitPwExpr(e: PwExpr, input: (index: number) => string): EmittedExpr {
  const keys = new WeakMap<PwExpr, string>();
  const names = new Map<string, string>();
  const lines: string[] = [];
  const loaded = new Map<number, string>();
  let ops = 0;

  // Structural key with children replaced by interned ids, so keys stay short on deep DAGs with sharing.
  const interned = new Map<string, string>();
  const keyOf = (x: PwExpr): string => {
    const hit = keys.get(x);
    if (hit !== undefined) return hit;
    let k: string;
    switch (x.op) {
      case 'in':
        k = `$${x.index}`;
        break;
      case 'const':
        k = `#${Object.is(x.value, -0) ? '-0' : String(Math.fround(x.value))}`;
        break;
      case 'where':
        k = `where ${keyOf(x.c)} ${keyOf(x.a)} ${keyOf(x.b)}`;
        break;
      case 'cast':
        k = `cast:${x.to} ${keyOf(x.a)}`;
        break;
      default:
        k = 'b' in x ? `${x.op} ${keyOf(x.a)} ${keyOf(x.b)}` : `${x.op} ${keyOf(x.a)}`;
    }
    let id = interned.get(k);
    if (id === undefined) {
      id = `@${interned.size}`;
      interned.set(k, id);
    }
    keys.set(x, id);
    return id;
  };

  const visit = (x: PwExpr): string => {
    if (x.op === 'in') {
      let v = loaded.get(x.index);
      if (v === undefined) {
        v = input(x.index);
        loaded.set(x.index, v);
      }
      return v;
    }
    if (x.op === 'const') return literal(x.value);
    const key = keyOf(x);
    const hit = names.get(key);
    if (hit !== undefined) return hit;
    let rhs: string;
    switch (x.op) {
      case 'where':
        rhs = `select(${visit(x.b)}, ${visit(x.a)}, ${visit(x.c)} != 0.0)`;
        break;
      case 'cast':
        rhs = castF32(visit(x.a), x.to);
        break;
      default:
        if ('b' in x) {
          const a = visit(x.a);
          if (x.op === 'pow' && x.b.op === 'const' && Number.isInteger(x.b.value) && Math.abs(x.b.value) <= POW_UNROLL_LIMIT) {
            const c = x.b.value;
            const prod = c === 0 ? '1.0' : `(${new Array(Math.abs(c)).fill(a).join(' * ')})`;
            rhs = c < 0 ? `(1.0 / ${prod})` : prod;
          } else rhs = binaryF32(x.op, a, visit(x.b));
        } else rhs = unaryF32(x.op, visit(x.a));
    }
    const name = `t${names.size}`;
    names.set(key, name);
    lines.push(`let ${name} = ${rhs};`);
    ops++;
    return name;
  };

  const result = visit(e);
  return { code: lines.join('\n'), result, ops };
}
