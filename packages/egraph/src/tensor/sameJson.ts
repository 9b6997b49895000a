// Equality of JSON texts without writing them: `sameJson(a, b)` is exactly `JSON.stringify(a) ===
// JSON.stringify(b)` for plain data (objects, arrays, primitives; no `toJSON`), keys compared in their order.
// Used where a rule compared freshly built expressions by their JSON text (tens of thousands of texts per run).

/** Whether a value inside an object is written by JSON.stringify (undefined, functions and symbols are skipped). */
const written = (v: unknown) => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';

/** Whether `JSON.stringify(a) === JSON.stringify(b)`. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ao = typeof a === 'object' && a !== null;
  const bo = typeof b === 'object' && b !== null;
  if (!ao || !bo) {
    if (ao || bo) return false;
    if (typeof a === 'string' && typeof b === 'string') return false; // distinct strings, distinct texts
    // distinct finite numbers have distinct texts (0 === -0, both written 0); NaN and ±Infinity are all null
    if (typeof a === 'number' && typeof b === 'number') return !Number.isFinite(a) && !Number.isFinite(b);
    return JSON.stringify(a) === JSON.stringify(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    // an array writes a skipped value as null
    for (let i = 0; i < a.length; i++) if (!sameJson(written(a[i]) ? a[i] : null, written(b[i]) ? b[i] : null)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  // refused before the key lists are made (GPT 6×384: ~77 000 of ~216 000 object pairs, ~28 MB of key lists a
  // run): distinct `op` strings are written as distinct texts, and so are distinct finite `index` numbers
  const xo = x.op;
  const yo = y.op;
  if (typeof xo === 'string' && typeof yo === 'string' && xo !== yo) return false;
  const xi = x.index;
  const yi = y.index;
  if (typeof xi === 'number' && typeof yi === 'number' && xi !== yi && Number.isFinite(xi) && Number.isFinite(yi)) return false;
  const kx = Object.keys(x);
  const ky = Object.keys(y);
  let j = 0;
  for (const k of kx) {
    if (!written(x[k])) continue;
    while (j < ky.length && !written(y[ky[j]])) j++;
    if (j === ky.length || ky[j] !== k || !sameJson(x[k], y[k])) return false;
    j++;
  }
  while (j < ky.length && !written(y[ky[j]])) j++;
  return j === ky.length;
}
