// The e-graph's hash-cons table: e-nodes named by numbers (op number, data number, children) map to a class id.
// A text key per node (op, data key and children joined) was built and hashed on every `add` and rebuild step;
// numbers hash without allocating. Must not know the e-graph. Invariant: one entry per (op, data, children).
import type { Id } from './language.js';

/** An entry of the table: a node by numbers, its class, the next entry of the same hash. */
interface MemoEntry {
  readonly op: number;
  readonly data: number;
  readonly kids: readonly Id[];
  id: Id;
  next: MemoEntry | undefined;
}

/** The hash of a node by numbers (a small integer: Map keys stay unboxed). */
export function nodeHash(op: number, data: number, kids: readonly Id[]): number {
  let h = Math.imul(op + 0x632be5ab, 0x9e3779b1) ^ Math.imul(data, 0x85ebca6b);
  for (let i = 0; i < kids.length; i++) {
    h = Math.imul(h ^ kids[i], 0xcc9e2d51);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) + kids.length;
  return h & 0x3fffffff;
}

/** Whether two children lists are equal. */
export function sameKids(a: readonly Id[], b: readonly Id[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A map from nodes by numbers (op, data, children) to class ids. */
export class NodeMemo {
  private readonly table = new Map<number, MemoEntry>();

  /** The id stored for this node, or undefined. */
  get(op: number, data: number, kids: readonly Id[], hash = nodeHash(op, data, kids)): Id | undefined {
    for (let e = this.table.get(hash); e !== undefined; e = e.next) if (e.op === op && e.data === data && sameKids(e.kids, kids)) return e.id;
    return undefined;
  }

  /** Stores `id` for this node; returns the id it replaces, if any. `kids` is kept: it must not change. */
  set(op: number, data: number, kids: readonly Id[], id: Id, hash = nodeHash(op, data, kids)): Id | undefined {
    const head = this.table.get(hash);
    for (let e = head; e !== undefined; e = e.next) {
      if (e.op === op && e.data === data && sameKids(e.kids, kids)) {
        const old = e.id;
        e.id = id;
        return old;
      }
    }
    this.table.set(hash, { op, data, kids, id, next: head });
    return undefined;
  }
}
