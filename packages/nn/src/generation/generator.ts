// Generation with a KV cache: a decode graph (one token in, next-token logits out) compiled once, whose
// attention layers keep K/V for every past position in state buffers updated in place by each step; the host
// feeds the token, its position and the additive mask, reads the logits and samples. `generate` streams
// token ids as an async iterator. When the cache is full it restarts from the last half of the tokens
// (nanoGPT crops to its block size the same way, recomputing). Must not recompile per token.
// Streams are independent: several `generate` iterations may interleave on one generator. The cache holds one
// stream's tokens at a time (`owner`); a stream that resumes after another wrote it re-runs its own tokens first
// (a prefill), and cache updates run one at a time (`exclusive`), so no stream ever reads another's K/V.

import { f32Data, GraphError, Graph, type Tensor, type TensorValue } from '@neura/ir';
import type { NeuraDevice } from '@neura/runtime-webgpu';
import { type AnyInferenceSession, compileInference } from '../compileInference.js';
import type { CausalLM } from '../models/causalLm.js';
import { Rng } from '../rng.js';
import { checkStateDict } from '../stateDict.js';
import { checkSampling, type SamplingOptions, sampleToken } from './sampling.js';

/** Options of `compileGenerator`. */
export interface GeneratorOptions {
  /** The device to compile the decode step for, its promise, or `'cpu'` (see `InferenceOptions.device`). */
  device: NeuraDevice | Promise<NeuraDevice> | 'cpu';
  /** `'cpu'`: decode on the CPU if WebGPU is unavailable (see `InferenceOptions.fallback`). */
  fallback?: 'cpu';
  /** Positions the KV cache holds (default: the model's context; required for models without one). */
  maxLen?: number;
  /** Run the e-graph optimizer on the decode graph (default true). */
  optimize?: boolean;
}

/** Options of one `generate` call. */
export interface GenerateOptions extends SamplingOptions {
  /** Tokens to produce after the prompt. */
  maxTokens: number;
  /** Seed of the sampling Rng (default 0); ignored when `rng` is given. */
  seed?: number;
  /** The Rng to draw from (its state advances, so a later call continues the stream). */
  rng?: Rng;
  /** Stop after producing any of these ids (the stop token is yielded). */
  stop?: readonly number[];
}

/** The decode graph's named inputs. */
const TOKEN = 'token';
const POS = 'pos';
const MASK = 'decodeMask';

/** The decode graph of a model: inputs `token` [1] i32, `pos` [1] i32, `decodeMask` [1, maxLen]; output `logits` [1, V]. */
export function buildDecodeGraph(model: CausalLM, maxLen: number): { graph: Graph; logits: Tensor } {
  if (!(Number.isInteger(maxLen) && maxLen >= 1)) throw new GraphError(`decode graph: maxLen must be a positive integer, got ${maxLen}`, 'Generator');
  const g = new Graph();
  const token = g.input(TOKEN, [1], 'i32');
  const pos = g.input(POS, [1], 'i32');
  const mask = g.input(MASK, [1, maxLen]);
  const slot = g.reshape(g.oneHot(pos, maxLen), [maxLen, 1]);
  const modes = model.namedModules().map(([, m]) => [m, m.training] as const);
  model.eval(); // no dropout while decoding
  try {
    return { graph: g, logits: model.decodeRows(g, token, pos, { maxLen, slot, mask }) };
  } finally {
    for (const [m, t] of modes) m.training = t;
  }
}

/** The decode feeds for `token` at `pos` (into reusable arrays when given). */
export function decodeFeeds(token: number, pos: number, maxLen: number, into?: { token: Int32Array; pos: Int32Array; mask: Float32Array }): Record<string, Int32Array | Float32Array> {
  const f = into ?? { token: new Int32Array(1), pos: new Int32Array(1), mask: new Float32Array(maxLen) };
  f.token[0] = token;
  f.pos[0] = pos;
  for (let j = 0; j < maxLen; j++) f.mask[j] = j <= pos ? 0 : -1e9;
  return { [TOKEN]: f.token, [POS]: f.pos, [MASK]: f.mask };
}

/**
 * Builds and compiles a model's decode graph; load weights with `loadStateDict` before generating.
 *
 * @example
 * ```ts
 * const gen = await compileGenerator(model, { device });   // KV cache of `context` positions
 * await gen.loadStateDict(await train.stateDict());
 * for await (const id of gen.generate(Array.from(tok.encode('The ')), { maxTokens: 200, temperature: 0.8, topK: 20, seed: 1 }))
 *   process.stdout.write(tok.decode([id]));
 * ```
 */
export async function compileGenerator(model: CausalLM, opts: GeneratorOptions): Promise<Generator> {
  const maxLen = opts.maxLen ?? model.maxContext;
  if (maxLen === undefined) throw new GraphError('compileGenerator: give maxLen (the model has no fixed context)', 'Generator');
  const { graph, logits } = buildDecodeGraph(model, maxLen);
  const session = await compileInference(graph, { outputs: { logits }, device: opts.device, optimize: opts.optimize, ...(opts.fallback ? { fallback: opts.fallback } : {}) });
  return new Generator(model, session, maxLen);
}

/** A compiled decode step with its KV cache; `generate` streams tokens. */
export class Generator {
  private readonly feeds: { token: Int32Array; pos: Int32Array; mask: Float32Array };
  private readonly spec: ReadonlyMap<string, { shape: readonly number[]; dtype: TensorValue['dtype'] }>;
  /** The stream whose tokens the KV cache holds (undefined after a `step` or `prefill` called directly). */
  private owner?: object;
  /** The last cache update queued: updates (a prefill, a step) run one after another, never interleaved. */
  private lock: Promise<unknown> = Promise.resolve();

  /** @internal Use `compileGenerator`. */
  constructor(
    /** The model whose decode step was compiled. */
    readonly model: CausalLM,
    /** The compiled decode graph (its state holds the model's weights and the KV caches), on the GPU or the CPU. */
    readonly session: AnyInferenceSession,
    /** Positions the cache holds. */
    readonly maxLen: number,
  ) {
    this.feeds = { token: new Int32Array(1), pos: new Int32Array(1), mask: new Float32Array(maxLen) };
    this.spec = model.stateDictSpec();
  }

  /** Loads the model's weights (e.g. a TrainingSession's `stateDict()`); every model leaf must be present. */
  async loadStateDict(values: Record<string, TensorValue>): Promise<void> {
    checkStateDict(this.spec, values, { what: 'Generator.loadStateDict' });
    await this.session.loadStateDict(values, { strict: false });
  }

  /** Feeds `token` at position `pos` (writing its K/V into the cache); returns the next-token logits if `read`. */
  step(token: number, pos: number, read = true): Promise<Float32Array | undefined> {
    return this.exclusive(null, () => this.stepCache(token, pos, read));
  }

  /** Runs `tokens` from position 0; returns the logits after the last one. */
  prefill(tokens: readonly number[]): Promise<Float32Array> {
    return this.exclusive(null, () => this.prefillCache(tokens));
  }

  /** Runs `fn` once every cache update queued before it is done, with the cache then belonging to `owner`. */
  private exclusive<T>(owner: object | null, fn: (ownedBefore: boolean) => Promise<T>): Promise<T> {
    const run = this.lock.then(() => {
      const ownedBefore = owner !== null && this.owner === owner;
      this.owner = owner ?? undefined;
      return fn(ownedBefore);
    });
    this.lock = run.catch(() => undefined);
    return run;
  }

  private async stepCache(token: number, pos: number, read: boolean): Promise<Float32Array | undefined> {
    if (!(Number.isInteger(pos) && pos >= 0 && pos < this.maxLen)) throw new RangeError(`Generator.step: position ${pos} is outside the cache [0, ${this.maxLen})`);
    if (!(Number.isInteger(token) && token >= 0 && token < this.model.vocab)) throw new RangeError(`Generator.step: token ${token} is outside the vocabulary [0, ${this.model.vocab})`);
    const feeds = decodeFeeds(token, pos, this.maxLen, this.feeds);
    const r = this.session.backend === 'cpu' ? { outputs: await this.session.run(feeds) } : await this.session.session.step(feeds, read ? { read: ['logits'] } : {});
    return read ? f32Data(r.outputs.logits, 'Generator.step logits') : undefined;
  }

  private async prefillCache(tokens: readonly number[]): Promise<Float32Array> {
    if (tokens.length === 0) throw new RangeError('Generator: the prompt is empty (give at least one token)');
    if (tokens.length > this.maxLen) throw new RangeError(`Generator: a prompt of ${tokens.length} tokens exceeds the cache of ${this.maxLen}`);
    for (let i = 0; i + 1 < tokens.length; i++) await this.stepCache(tokens[i], i, false);
    return (await this.stepCache(tokens[tokens.length - 1], tokens.length - 1, true)) as Float32Array;
  }

  /**
   * Streams `maxTokens` sampled token ids after `prompt` (see GenerateOptions). Streams are independent: two may
   * interleave on one generator (each yields what it would alone); resuming after another stream costs a prefill.
   */
  async *generate(prompt: ArrayLike<number>, opts: GenerateOptions): AsyncGenerator<number, void, undefined> {
    checkSampling(opts);
    // Any ArrayLike (number[], Int32Array, Uint32Array) becomes a plain number[]: `seq` grows with push/splice,
    // which typed arrays lack (their slice is a fixed-length typed array).
    const ids: number[] = Array.from(prompt);
    const vocab = this.model.vocab;
    for (let i = 0; i < ids.length; i++) {
      const t = ids[i];
      if (!(Number.isInteger(t) && t >= 0 && t < vocab)) throw new RangeError(`generate: prompt id ${t} at position ${i} is not an integer in the vocabulary [0, ${vocab})`);
    }
    if (!(Number.isInteger(opts.maxTokens) && opts.maxTokens >= 0)) throw new RangeError(`generate: maxTokens must be a non-negative integer, got ${opts.maxTokens}`);
    const rng = opts.rng ?? new Rng(opts.seed ?? 0);
    const stop = new Set(opts.stop ?? []);
    const seq = ids.slice(Math.max(0, ids.length - this.maxLen));
    const me = {}; // this stream, as the cache's owner
    // the next token's logits: a step when the cache still holds this stream's tokens, else a prefill of them all
    const advance = (next?: number) => this.exclusive(me, async (owned) => (owned && next !== undefined ? ((await this.stepCache(next, seq.length - 1, true)) as Float32Array) : this.prefillCache(seq)));
    let logits = await advance();
    for (let produced = 0; produced < opts.maxTokens; produced++) {
      const next = sampleToken(logits, opts, rng);
      yield next;
      if (stop.has(next) || produced + 1 === opts.maxTokens) return;
      seq.push(next);
      if (seq.length > this.maxLen) {
        seq.splice(0, seq.length - Math.max(1, Math.floor(this.maxLen / 2)));
        logits = await advance();
      } else logits = await advance(next);
    }
  }

  /** Frees the decode session. */
  dispose(): void {
    this.session.dispose();
  }
}
