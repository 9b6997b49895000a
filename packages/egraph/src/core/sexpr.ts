// The s-expression reader and writer shared by patterns and expressions: `(op child ...)`, leaves, `?vars`
// and attributes written `op[key=value,...]` (object data) or `op[value]` (scalar/array data).
// Must not build e-nodes or patterns itself. Invariant: `formatOp` output parses back to the same op and data.
import { ParseError } from './errors.js';
import type { ENode, Language, NodeData } from './language.js';
import { isDataRecord } from './language.js';

/** A parsed s-expression: an atom token or a parenthesised list, with its offset in the source. */
export type SExp =
  | { readonly kind: 'atom'; readonly text: string; readonly pos: number }
  | { readonly kind: 'list'; readonly items: readonly SExp[]; readonly pos: number };

/** Reads one s-expression from `source`; throws an Error naming the offset on malformed input. */
export function parseSExp(source: string): SExp {
  let i = 0;
  const fail = (msg: string, at: number): never => {
    throw new ParseError(`s-expression ${JSON.stringify(source)}: ${msg} at offset ${at}`);
  };
  const skip = () => {
    while (i < source.length && /\s/.test(source[i])) i++;
  };
  const atom = (): SExp => {
    const start = i;
    let depth = 0;
    let quote = false;
    while (i < source.length) {
      const c = source[i];
      if (quote) {
        if (c === '\\') i++;
        else if (c === '"') quote = false;
      } else if (c === '"' && depth > 0) quote = true;
      else if (c === '[') depth++;
      else if (c === ']') {
        depth--;
        if (depth < 0) fail("unbalanced ']'", i);
      } else if (depth === 0 && (c === '(' || c === ')' || /\s/.test(c))) break;
      i++;
    }
    if (depth !== 0 || quote) fail("unclosed '['", start);
    return { kind: 'atom', text: source.slice(start, i), pos: start };
  };
  const expr = (): SExp => {
    skip();
    if (i >= source.length) fail('unexpected end of input', i);
    const c = source[i];
    if (c === ')') fail("unexpected ')'", i);
    if (c !== '(') return atom();
    const pos = i++;
    const items: SExp[] = [];
    for (;;) {
      skip();
      if (i >= source.length) fail("unclosed '('", pos);
      if (source[i] === ')') {
        i++;
        break;
      }
      items.push(expr());
    }
    if (items.length === 0) fail('empty list', pos);
    if (items[0].kind !== 'atom') fail('a list must start with an operator', pos);
    return { kind: 'list', items, pos };
  };
  const result = expr();
  skip();
  if (i < source.length) fail('trailing input', i);
  return result;
}

/** Splits `text` at top-level commas (outside brackets, braces and quotes). */
function splitTopLevel(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === '"') quote = false;
    } else if (c === '"') quote = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Parses one attribute value: JSON when it is JSON, otherwise the bare text as a string. */
function parseValue(text: string): NodeData {
  const t = text.trim();
  try {
    return JSON.parse(t) as NodeData;
  } catch {
    return t;
  }
}

/**
 * Reads an operator token into op and data: `op[k=v,...]` gives object data, `op[v]` scalar data; a bare
 * token goes through `language.parseLeaf` when it is a leaf, and is a plain op otherwise.
 */
export function parseOp(token: string, language: Language, isLeaf: boolean): { op: string; data?: NodeData } {
  const open = token.indexOf('[');
  if (open > 0 && token.endsWith(']')) {
    const op = token.slice(0, open);
    const inner = token.slice(open + 1, -1).trim();
    if (inner === '') return { op, data: {} };
    const items = splitTopLevel(inner, ',');
    const hasKeys = items.every((item) => splitTopLevel(item, '=').length === 2);
    if (!hasKeys) {
      if (items.length !== 1) throw new ParseError(`attributes of ${JSON.stringify(token)}: write key=value pairs`);
      return { op, data: parseValue(inner) };
    }
    const data: { [key: string]: NodeData } = {};
    for (const item of items) {
      const [k, v] = splitTopLevel(item, '=');
      data[k.trim()] = parseValue(v);
    }
    return { op, data };
  }
  if (isLeaf && language.parseLeaf) return language.parseLeaf(token);
  return { op: token };
}

/** Writes an op and its data in the syntax `parseOp` reads (leaves may use `language.formatLeaf`). */
export function formatOp(node: ENode, language: Language): string {
  if (node.children.length === 0 && language.formatLeaf) {
    const s = language.formatLeaf(node);
    if (s !== undefined) return s;
  }
  const data = node.data;
  if (data === undefined) return node.op;
  if (isDataRecord(data)) {
    const keys = Object.keys(data)
      .filter((k) => data[k] !== undefined)
      .sort();
    return `${node.op}[${keys.map((k) => `${k}=${JSON.stringify(data[k])}`).join(',')}]`;
  }
  return `${node.op}[${JSON.stringify(data)}]`;
}
