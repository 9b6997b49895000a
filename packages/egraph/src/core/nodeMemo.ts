// The e-graph's hash-cons table: e-nodes named by numbers (op number, data number, children) map to a class id.
// A text key per node (op, data key and children joined) was built and hashed on every `add` and rebuild step;
// numbers hash without allocating. Must not know the e-graph. Invariant: one entry per (op, data, children).
import type { Id } from './language.js';

/** The hash of a node by numbers (30 bits: a small integer, unboxed as a Map key or a typed-array value). */
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

/**
 * A map from nodes by numbers (op, data, children) to class ids: chained buckets over entry columns (typed arrays,
 * and the children lists by reference). An object per entry in a `Map` by hash outlived the young generation with
 * the e-graph and was copied by every scavenge on the way (~100 000 entries on the GPT 6×384 step).
 */
export class NodeMemo {
  /** Per bucket (hash & mask): its first entry + 1, or 0. */
  private buckets = new Int32Array(1024);
  private mask = 1023;
  private count = 0;
  // per entry: its hash, op, data, class and next entry of its bucket + 1 (0: none)
  private hashes = new Int32Array(1024);
  private ops = new Int32Array(1024);
  private datas = new Int32Array(1024);
  private ids = new Int32Array(1024);
  private nexts = new Int32Array(1024);
  private readonly kids: (readonly Id[])[] = [];

  /** The id stored for this node, or undefined. */
  get(op: number, data: number, kids: readonly Id[], hash = nodeHash(op, data, kids)): Id | undefined {
    const e = this.find(op, data, kids, hash);
    return e < 0 ? undefined : this.ids[e];
  }

  /** Stores `id` for this node; returns the id it replaces, if any. `kids` is kept: it must not change. */
  set(op: number, data: number, kids: readonly Id[], id: Id, hash = nodeHash(op, data, kids)): Id | undefined {
    const e = this.find(op, data, kids, hash);
    if (e >= 0) {
      const old = this.ids[e];
      this.ids[e] = id;
      return old;
    }
    const n = this.count;
    if (n === this.hashes.length) this.growEntries();
    if (n >= this.buckets.length) this.growBuckets();
    const b = hash & this.mask;
    this.hashes[n] = hash;
    this.ops[n] = op;
    this.datas[n] = data;
    this.ids[n] = id;
    this.nexts[n] = this.buckets[b];
    this.kids.push(kids);
    this.buckets[b] = n + 1;
    this.count = n + 1;
    return undefined;
  }

  /** The entry of this node, or -1. */
  private find(op: number, data: number, kids: readonly Id[], hash: number): number {
    for (let e = this.buckets[hash & this.mask] - 1; e >= 0; e = this.nexts[e] - 1) {
      if (this.hashes[e] === hash && this.ops[e] === op && this.datas[e] === data && sameKids(this.kids[e], kids)) return e;
    }
    return -1;
  }

  /** Doubles the entry columns (those written kept). */
  private growEntries(): void {
    this.hashes = doubled(this.hashes);
    this.ops = doubled(this.ops);
    this.datas = doubled(this.datas);
    this.ids = doubled(this.ids);
    this.nexts = doubled(this.nexts);
  }

  /** Doubles the buckets (at most one entry per bucket on average) and chains every entry again. */
  private growBuckets(): void {
    const buckets = new Int32Array(2 * this.buckets.length);
    const mask = buckets.length - 1;
    for (let e = 0; e < this.count; e++) {
      const b = this.hashes[e] & mask;
      this.nexts[e] = buckets[b];
      buckets[b] = e + 1;
    }
    this.buckets = buckets;
    this.mask = mask;
  }
}

/** A copy of `a` twice as long (the rest zero). */
function doubled(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(2 * a.length);
  b.set(a);
  return b;
}
