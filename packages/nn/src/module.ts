// The module tree: a layer declares its parameters, buffers (non-trainable state such as BatchNorm's running
// statistics) and children by name; `forward(g, x, prefix)` adds its nodes to a graph, creating each
// parameter/buffer leaf under its dotted name (`features.0.weight`), PyTorch's naming. A module owns no
// tensor data: values live in the session that runs the graph (see stateDict.ts). Invariants: the names a
// forward pass creates are exactly `namedParameters()` / `namedBuffers()` under that prefix; `training` picks
// which graph forward builds (train and eval graphs are separate and share leaf names, hence values).
// Freezing (`freeze`, `requiresGrad(false)`) builds a parameter as a `state` leaf under the same name: no
// gradient, no optimizer state, its backward pruned; it stays in `namedParameters()` and in every state dict.

import { type DType, GraphError, type Graph, hashName, type Init, initialValue, type Shape, type Tensor, type TensorValue } from '@neura/ir';

/** A declared parameter or buffer: shape, dtype and how it starts (a seeded init's `seed` is an offset). */
export interface LeafSpec {
  /** Extents of the leaf. */
  readonly shape: Shape;
  /** Element type of the leaf. */
  readonly dtype: DType;
  /** First value; for `uniform`/`normal` the seed used is `seed + hashName(fullName)`, so every leaf differs. */
  readonly init: Init;
  /** False for a frozen parameter (PyTorch's `requires_grad`); absent means trainable (buffers: not applicable). */
  readonly requiresGrad?: boolean;
}

/** Joins a parameter name to its owner's prefix. */
export function paramName(prefix: string | undefined, name: string): string {
  return prefix ? `${prefix}.${name}` : name;
}

/** The init of a leaf under its full name (seeded inits get a per-name seed). */
export function leafInit(spec: LeafSpec, fullName: string): Init {
  const init = spec.init;
  return init.kind === 'uniform' || init.kind === 'normal' ? { ...init, seed: init.seed + hashName(fullName) } : init;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$|^[0-9]+$/;

/**
 * A layer: named parameters, buffers and child modules, and a `forward` that builds its graph.
 *
 * @example
 * ```ts
 * class Affine extends Module {
 *   constructor(readonly features: number) {
 *     super();
 *     this.registerParameter('scale', [features], { kind: 'ones' });
 *     this.registerParameter('shift', [features], { kind: 'zeros' });
 *   }
 *   forward(g: Graph, x: Tensor, prefix?: string): Tensor {
 *     return g.add(g.mul(x, this.param(g, prefix, 'scale')), this.param(g, prefix, 'shift'));
 *   }
 * }
 * ```
 */
export abstract class Module {
  /** Training mode (default): BatchNorm uses batch statistics and updates its running ones, Dropout drops. */
  training = true;
  private readonly params = new Map<string, LeafSpec>();
  private readonly bufs = new Map<string, LeafSpec>();
  private readonly mods = new Map<string, Module>();
  /** Local names of this module's frozen parameters (built as state leaves). */
  private readonly frozen = new Set<string>();

  /** Adds this layer's nodes for input `x`; `prefix` names its parameters (`prefix.weight`). */
  abstract forward(g: Graph, x: Tensor, prefix?: string): Tensor;

  /** Declares a trainable f32 parameter (created in the graph on first use by `forward`). */
  protected registerParameter(name: string, shape: Shape, init: Init): void {
    this.checkFree(name);
    this.params.set(name, { shape: [...shape], dtype: 'f32', init });
  }

  /** Declares a buffer: persistent, not trained, part of the state dict (running statistics, counters). */
  protected registerBuffer(name: string, shape: Shape, init: Init = { kind: 'zeros' }, dtype: DType = 'f32'): void {
    this.checkFree(name);
    this.bufs.set(name, { shape: [...shape], dtype, init });
  }

  /** Declares a child module; its leaves are named `name.<leaf>`. Returns the child. */
  protected registerModule<M extends Module>(name: string, module: M): M {
    this.checkFree(name);
    if (!(module instanceof Module)) throw new GraphError(`registerModule '${name}': not a Module`, 'Module');
    this.mods.set(name, module);
    return module;
  }

  /** The graph leaf of a registered parameter under `prefix` (reused if this graph already has it). */
  protected param(g: Graph, prefix: string | undefined, name: string): Tensor {
    const spec = this.params.get(name);
    if (!spec) throw new GraphError(`${this.constructor.name}: no parameter '${name}' was registered (have: ${[...this.params.keys()].join(', ') || 'none'})`, 'Module');
    // a frozen parameter is a state leaf of the same name and init: autograd never reaches it, no optimizer sees it
    return leaf(g, this.frozen.has(name) ? 'state' : 'param', paramName(prefix, name), spec);
  }

  /** The graph leaf of a registered buffer under `prefix` (reused if this graph already has it). */
  protected buffer(g: Graph, prefix: string | undefined, name: string): Tensor {
    const spec = this.bufs.get(name);
    if (!spec) throw new GraphError(`${this.constructor.name}: no buffer '${name}' was registered (have: ${[...this.bufs.keys()].join(', ') || 'none'})`, 'Module');
    return leaf(g, 'state', paramName(prefix, name), spec);
  }

  /** Runs the registered child `name` on `x` under `prefix.name`. */
  protected child(name: string, g: Graph, x: Tensor, prefix?: string): Tensor {
    const m = this.mods.get(name);
    if (!m) throw new GraphError(`${this.constructor.name}: no child module '${name}' (have: ${[...this.mods.keys()].join(', ') || 'none'})`, 'Module');
    return m.forward(g, x, paramName(prefix, name));
  }

  /** Direct children with their names, in registration order. */
  namedChildren(): [string, Module][] {
    return [...this.mods.entries()];
  }

  /** This module and every descendant with its dotted name ('' for this one), depth first. */
  namedModules(prefix = ''): [string, Module][] {
    const out: [string, Module][] = [[prefix, this]];
    for (const [n, m] of this.mods) out.push(...m.namedModules(paramName(prefix, n)));
    return out;
  }

  /** Every parameter of the tree by full dotted name, in registration order (a shared module once). */
  namedParameters(prefix = ''): [string, LeafSpec][] {
    return this.collect(prefix, (m) => new Map([...m.params].map(([n, s]) => [n, m.frozen.has(n) ? { ...s, requiresGrad: false } : s])));
  }

  /**
   * Sets whether every parameter of this module and its descendants is trained (PyTorch's `requires_grad_`);
   * returns this. Takes effect in graphs built afterwards.
   */
  requiresGrad(requires = true): this {
    for (const [, m] of this.namedModules()) for (const n of m.params.keys()) m.setFrozen(n, !requires);
    return this;
  }

  /**
   * Freezes parameters: with no argument the whole tree; else each name is a submodule's dotted path
   * (`'transformer.h.0'`, its whole subtree) or one parameter's full name (`'fc1.bias'`). Returns this.
   */
  freeze(...names: string[]): this {
    return this.setRequiresGrad(names, false, 'freeze');
  }

  /** Undoes `freeze`: the whole tree with no argument, else the named submodules or parameters. Returns this. */
  unfreeze(...names: string[]): this {
    return this.setRequiresGrad(names, true, 'unfreeze');
  }

  /** Whether the parameter of this full dotted name is trained (false once frozen); throws for an unknown name. */
  parameterRequiresGrad(name: string): boolean {
    const [owner, local] = this.ownerOf(name, 'parameterRequiresGrad');
    return !owner.frozen.has(local);
  }


  /** Every buffer of the tree by full dotted name. */
  namedBuffers(prefix = ''): [string, LeafSpec][] {
    return this.collect(prefix, (m) => m.bufs);
  }

  /** Parameters and buffers together: the names and types a state dict of this model holds. */
  stateDictSpec(prefix = ''): Map<string, LeafSpec> {
    return new Map([...this.namedParameters(prefix), ...this.namedBuffers(prefix)]);
  }

  /** The initial values of every parameter and buffer, computed on the host exactly as a session initialises them. */
  initialState(prefix = ''): Record<string, TensorValue> {
    const out: Record<string, TensorValue> = {};
    for (const [n, s] of this.stateDictSpec(prefix)) out[n] = initialValue(leafInit(s, n), s.shape, s.dtype, n);
    return out;
  }

  /** Sets training mode on this module and every descendant; returns this. */
  train(mode = true): this {
    for (const [, m] of this.namedModules()) m.training = mode;
    return this;
  }

  /** Sets evaluation mode (running statistics, no dropout) on the whole tree; returns this. */
  eval(): this {
    return this.train(false);
  }

  /** Number of parameter scalars; `{ trainable: true }` counts only those not frozen. */
  parameterCount(opts: { trainable?: boolean } = {}): number {
    const ps = this.namedParameters().filter(([, p]) => !opts.trainable || p.requiresGrad !== false);
    return ps.reduce((s, [, p]) => s + p.shape.reduce((a, b) => a * b, 1), 0);
  }

  private setFrozen(local: string, frozen: boolean): void {
    if (frozen) this.frozen.add(local);
    else this.frozen.delete(local);
  }

  private setRequiresGrad(names: readonly string[], requires: boolean, what: string): this {
    if (names.length === 0) return this.requiresGrad(requires);
    const modules = new Map(this.namedModules());
    for (const name of names) {
      const m = modules.get(name);
      if (m) m.requiresGrad(requires);
      else {
        const [owner, local] = this.ownerOf(name, what);
        owner.setFrozen(local, !requires);
      }
    }
    return this;
  }

  /** The module declaring the parameter of full name `name`, and its local name. */
  private ownerOf(name: string, what: string): [Module, string] {
    for (const [p, m] of this.namedModules()) for (const n of m.params.keys()) if (paramName(p, n) === name) return [m, n];
    const mods = this.namedModules().map(([n]) => n).filter(Boolean);
    throw new GraphError(
      `${this.constructor.name}.${what}: '${name}' is neither a submodule nor a parameter (submodules: ${mods.join(', ') || 'none'}; parameters: ${this.namedParameters().map(([n]) => n).join(', ') || 'none'})`,
      'Module',
    );
  }

  private checkFree(name: string): void {
    if (!NAME.test(name)) throw new GraphError(`${this.constructor.name}: '${name}' is not a valid member name (letters, digits, _; or an index)`, 'Module');
    if (this.params.has(name) || this.bufs.has(name) || this.mods.has(name))
      throw new GraphError(`${this.constructor.name}: '${name}' is already registered`, 'Module');
  }

  private collect(prefix: string, pick: (m: Module) => Map<string, LeafSpec>): [string, LeafSpec][] {
    const out: [string, LeafSpec][] = [];
    const seen = new Set<Module>();
    const walk = (m: Module, p: string) => {
      if (seen.has(m)) return;
      seen.add(m);
      for (const [n, s] of pick(m)) out.push([paramName(p, n), s]);
      for (const [n, c] of m.mods) walk(c, paramName(p, n));
    };
    walk(this, prefix);
    return out;
  }
}

function leaf(g: Graph, op: 'param' | 'state', name: string, spec: LeafSpec): Tensor {
  const have = g.byName(name);
  if (have) {
    if (have.op !== op || have.dtype !== spec.dtype || have.shape.join() !== spec.shape.join())
      throw new GraphError(
        `${op} '${name}': the graph already has a ${have.op} of this name [${have.shape.join(', ')}]:${have.dtype}, this module wants [${spec.shape.join(', ')}]:${spec.dtype}`,
        'Module',
      );
    return have; // the same module used twice in one graph shares its leaves
  }
  return op === 'param' ? g.param(name, spec.shape, leafInit(spec, name)) : g.state(name, spec.shape, leafInit(spec, name), spec.dtype);
}

/** Kaiming-uniform with a = √5 (PyTorch's default for Linear and Conv weights): U(±1/√fanIn); also their bias. */
export function kaimingUniform(fanIn: number, seed = 0): Init {
  const bound = 1 / Math.sqrt(Math.max(1, fanIn));
  return { kind: 'uniform', low: -bound, high: bound, seed };
}
