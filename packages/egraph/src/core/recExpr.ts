// Concrete expressions outside the e-graph: `Term` (a tree) and `RecExpr` (egg's flat list of nodes whose
// children are indices of earlier entries, so shared subterms appear once). Must not touch an e-graph.
// Invariant: in a RecExpr every child index is smaller than its parent's index; the root is the last entry.
import { ParseError } from './errors.js';
import type { ENode, Language, NodeData } from './language.js';
import { defaultLanguage, nodeKey } from './language.js';
import { formatOp, parseOp, parseSExp } from './sexpr.js';
import type { SExp } from './sexpr.js';

/** A flat expression: `children` of each node index earlier entries; the last entry is the root. */
export type RecExpr = readonly ENode[];

/** A tree expression, convenient to write by hand. */
export interface Term {
  /** The operator name. */
  readonly op: string;
  /** Attribute data. */
  readonly data?: NodeData;
  /** Child terms, in operand order. */
  readonly children: readonly Term[];
}

/** Builds a term; `data` is left out when undefined. */
export function term(op: string, children: readonly Term[] = [], data?: NodeData): Term {
  return data === undefined ? { op, children } : { op, data, children };
}

/** Parses an s-expression without variables into a term, e.g. `(add x (mul y 2))`. */
export function parseTerm(source: string, language: Language = defaultLanguage): Term {
  const go = (s: SExp): Term => {
    if (s.kind === 'atom') {
      if (s.text.startsWith('?')) throw new ParseError(`expression ${JSON.stringify(source)}: variable ${s.text} is not allowed`);
      const { op, data } = parseOp(s.text, language, true);
      return term(op, [], data);
    }
    const head = s.items[0] as { text: string };
    const { op, data } = parseOp(head.text, language, false);
    return term(op, s.items.slice(1).map(go), data);
  };
  return go(parseSExp(source));
}

/** Flattens a term into a RecExpr, sharing structurally equal subterms. */
export function termToRecExpr(t: Term): RecExpr {
  const nodes: ENode[] = [];
  const seen = new Map<string, number>();
  const go = (x: Term): number => {
    const children = x.children.map(go);
    const node: ENode = x.data === undefined ? { op: x.op, children } : { op: x.op, data: x.data, children };
    const key = nodeKey(node);
    const known = seen.get(key);
    if (known !== undefined) return known;
    nodes.push(node);
    seen.set(key, nodes.length - 1);
    return nodes.length - 1;
  };
  go(t);
  return nodes;
}

/** Parses an s-expression without variables straight into a RecExpr. */
export function parseRecExpr(source: string, language: Language = defaultLanguage): RecExpr {
  return termToRecExpr(parseTerm(source, language));
}

/** Prints the tree rooted at `root` (default: the last entry) as an s-expression. */
export function recExprToString(expr: RecExpr, language: Language = defaultLanguage, root = expr.length - 1): string {
  const go = (i: number): string => {
    const node = expr[i];
    const head = formatOp(node, language);
    return node.children.length === 0 ? head : `(${head} ${node.children.map(go).join(' ')})`;
  };
  return go(root);
}

/** Prints a term as an s-expression. */
export function termToString(t: Term, language: Language = defaultLanguage): string {
  return recExprToString(termToRecExpr(t), language);
}
