// Float values of a user's pointwise expression, read at run time from one uniform buffer instead of written as WGSL
// literals: WGSL lets a compiler assume finite values, and llvmpipe's GLSL path folded x / 0.0 → 0, x·0.0 → 0,
// x + 0.0 → x and (x·1e30)·1e-30 → x, so a fused kernel lost the IEEE results of the unfused graph (issue 22).
// Generators write `literal(v)` placeholders; `literalTable` turns them into reads of `lits` (4 per vec4, deduped
// by their bits). u32 indices and sizes, and the constants of an op's own formula, stay inline.

import type { Binding, Dispatch } from './kernel.js';
import { KernelError } from './kernel.js';

/** The name of the uniform array the literals are read from. */
export const LITERALS_VAR = 'lits';

/** WebGPU's default maxUniformBufferBindingSize (bytes): the table must fit it. */
const MAX_LITERAL_BYTES = 65536;

// identifiers starting with `__` are reserved in WGSL: a placeholder never collides with a name, and one left in a
// shader is a compile error, never a silent value
const PLACEHOLDER = /__lit_([0-9a-f]{8})\b/g;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** A placeholder for the f32 value `v` (any value: ±0, ±Infinity and NaN included), resolved by `literalTable`. */
export function literal(v: number): string {
  f32[0] = v;
  return `__lit_${u32[0].toString(16).padStart(8, '0')}`;
}

/** WGSL with its placeholders replaced by reads of `lits`, and the table's values (undefined when there are none). */
export function literalTable(code: string): { code: string; data?: Float32Array } {
  const slot = new Map<string, number>();
  const out = code.replace(PLACEHOLDER, (_, bits: string) => {
    let i = slot.get(bits);
    if (i === undefined) {
      i = slot.size;
      slot.set(bits, i);
    }
    return `${LITERALS_VAR}[${i >> 2}].${'xyzw'[i & 3]}`;
  });
  if (slot.size === 0) return { code };
  const words = new Uint32Array(slot.size);
  for (const [bits, i] of slot) words[i] = Number.parseInt(bits, 16);
  if (literalTableBytes(slot.size) > MAX_LITERAL_BYTES) throw new KernelError(`${slot.size} distinct float literals need ${literalTableBytes(slot.size)} bytes, more than maxUniformBufferBindingSize (default ${MAX_LITERAL_BYTES})`);
  return { code: out, data: new Float32Array(words.buffer) };
}

/** Bytes of the uniform buffer holding `count` literals: whole vec4s (a uniform array's stride is 16 bytes). */
export function literalTableBytes(count: number): number {
  return Math.ceil(count / 4) * 16;
}

/** The shortest decimal that reads back as the f32 `v`, for comments. */
function shortest(v: number): string {
  if (Object.is(v, -0)) return '-0';
  for (let p = 1; p < 9; p++) {
    const s = String(Number(v.toPrecision(p)));
    if (Math.fround(Number(s)) === v) return s;
  }
  return String(v);
}

/** The binding of a literal table (its values in slot order, unpadded). */
export function literalsBinding(data: Float32Array): Binding {
  return { source: { kind: 'literals', data }, access: 'read', dtype: 'f32' };
}

/** The WGSL declaration of a literal table at `@binding(index)`, its values in a comment. */
export function declareLiterals(index: number, data: Float32Array): string {
  return `// float literals, read at run time so that the shader compiler cannot fold them: ${Array.from(data, shortest).join(', ')}
@group(0) @binding(${index}) var<uniform> ${LITERALS_VAR}: array<vec4<f32>, ${literalTableBytes(data.length) / 16}>;`;
}

/**
 * A dispatch with its placeholders resolved: the table bound after its other bindings, declared after their
 * declarations (or after the header comment when there are none).
 */
export function bindLiterals(d: Dispatch): Dispatch {
  const { code, data } = literalTable(d.code);
  if (!data) return d;
  const lines = code.split('\n');
  let at = lines.findLastIndex((l) => l.startsWith('@group(0) @binding('));
  if (at < 0) at = lines.findIndex((l) => !l.startsWith('//')) - 1;
  lines.splice(at + 1, 0, declareLiterals(d.bindings.length, data));
  return { ...d, code: lines.join('\n'), bindings: [...d.bindings, literalsBinding(data)] };
}
