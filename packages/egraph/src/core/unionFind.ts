// Union-find over dense integer ids with path compression (halving); the e-graph's notion of "same class".
// Must not know about e-nodes or analyses. Invariant: `find` is idempotent and a root is its own parent.
import type { Id } from './language.js';

/** Disjoint sets of ids with path compression; `union(a, b)` makes root `a` the representative. */
export class UnionFind {
  private readonly parents: Id[] = [];

  /** Number of ids ever made. */
  get size(): number {
    return this.parents.length;
  }

  /** Makes a new singleton set and returns its id. */
  makeSet(): Id {
    const id = this.parents.length;
    this.parents.push(id);
    return id;
  }

  /** The representative of `id`'s set, compressing the path on the way. */
  find(id: Id): Id {
    const p = this.parents;
    if (id < 0 || id >= p.length) throw new RangeError(`UnionFind.find: unknown id ${id} (size ${p.length})`);
    let x = id;
    while (p[x] !== x) {
      p[x] = p[p[x]]; // path halving
      x = p[x];
    }
    return x;
  }

  /** Joins two roots (both must be roots), keeping `root1`; returns the new root. */
  union(root1: Id, root2: Id): Id {
    this.parents[root2] = root1;
    return root1;
  }
}
