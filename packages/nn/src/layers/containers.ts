// Containers: Sequential (children applied in order) and ModuleList (an indexed list of children that the
// owner calls itself). Children are named by their index ('0', '1', …), so leaves read `3.weight`, as in
// PyTorch. A container declares no leaves of its own.

import { GraphError, type Graph, type Tensor } from '@neura/ir';
import { Module } from '../module.js';

/** Applies layers in order; layer i's leaves are prefixed with `i`. */
export class Sequential extends Module {
  /** The layers, in order. */
  readonly layers: readonly Module[];
  constructor(...layers: Module[]) {
    super();
    this.layers = layers;
    for (const [i, m] of layers.entries()) this.registerModule(String(i), m);
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    return this.layers.reduce((h, _, i) => this.child(String(i), g, h, prefix), x);
  }
}

/** An indexed list of modules (leaves `i.…`); the owner runs them, so it has no forward of its own. */
export class ModuleList extends Module {
  private readonly items: Module[] = [];
  constructor(modules: Iterable<Module> = []) {
    super();
    for (const m of modules) this.append(m);
  }
  /** Adds a module at the end; returns this. */
  append(m: Module): this {
    this.registerModule(String(this.items.length), m);
    this.items.push(m);
    return this;
  }
  /** The module at `i`. */
  at(i: number): Module {
    const m = this.items[i < 0 ? this.items.length + i : i];
    if (!m) throw new GraphError(`ModuleList: index ${i} out of range (length ${this.items.length})`, 'Module');
    return m;
  }
  /** Number of modules. */
  get length(): number {
    return this.items.length;
  }
  /** Iterates over the modules in order. */
  [Symbol.iterator](): Iterator<Module> {
    return this.items[Symbol.iterator]();
  }
  /** Runs module `i` under `prefix.i` (leaf names stay those of `namedParameters`). */
  call(i: number, g: Graph, x: Tensor, prefix?: string): Tensor {
    this.at(i);
    return this.child(String(i < 0 ? this.items.length + i : i), g, x, prefix);
  }
  forward(): Tensor {
    throw new GraphError('ModuleList has no forward: call its modules (list.call(i, g, x, prefix))', 'Module');
  }
}
