// Generation with a KV cache: a decode graph (one token in, next-token logits out) compiled once, whose
// attention layers keep K/V for every past position in state buffers updated in place by each step; the host
// feeds the token, its position and the additive mask, reads the logits and samples. `generate` streams
// token ids as an async iterator. When the cache is full it restarts from the last half of the tokens
// (nanoGPT crops to its block size the same way, recomputing). Must not recompile per token.
// Streams are independent: several `generate` iterations may interleave on one generator. The cache holds one
// stream's tokens at a time (`owner`); a stream that resumes after another wrote it re-runs its own tokens first
// (a prefill), and cache updates run one at a time (`exclusive`), so no stream ever reads another's K/V.
// Batched (`batch: B`): B rows share the step's position and mask, each with its own cache rows. `generateBatch`
// runs its prompts in lockstep from position 0: a row feeds its prompt while others already sample, so each row
// sees exactly the positions it would alone (the same logits, hence the same tokens for the same seed).

import { f32Data, GraphError, Graph, type Tensor, type TensorValue } from '@neura/ir';
import type { NeuraDevice } from '@neura/runtime-webgpu';
import { type AnyInferenceSession, compileInference } from '../compileInference.js';
import type { CausalLM } from '../models/causalLm.js';
import type { WeightFormat } from '../quantizeWeights.js';
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
  /** Rows decoded together (default 1): `generateBatch` takes up to this many prompts. */
  batch?: number;
  /** `'q8_0'` / `'q4_0'`: Linear weights kept as GGUF Q8_0 / Q4_0 blocks, dequantized in the matmul (see `InferenceOptions.weights`). */
  weights?: WeightFormat;
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

/** Options of one `generateBatch` call: every row samples under the same options, each from its own Rng. */
export interface GenerateBatchOptions extends SamplingOptions {
  /** Tokens to produce after each prompt. */
  maxTokens: number;
  /** Seed of every row's Rng (default 0): a row draws what `generate` draws for its prompt with this seed. */
  seed?: number;
  /** One seed per prompt (overrides `seed`). */
  seeds?: readonly number[];
  /** A row stops after producing any of these ids (the stop token is kept). */
  stop?: readonly number[];
}

/** The decode graph's named inputs. */
const TOKEN = 'token';
const POS = 'pos';
const MASK = 'decodeMask';

/** The decode graph of a model: inputs `token` [B] i32, `pos` [1] i32, `decodeMask` [1, maxLen]; output `logits` [B, V]. */
export function buildDecodeGraph(model: CausalLM, maxLen: number, batch = 1): { graph: Graph; logits: Tensor } {
  if (!(Number.isInteger(maxLen) && maxLen >= 1)) throw new GraphError(`decode graph: maxLen must be a positive integer, got ${maxLen}`, 'Generator');
  if (!(Number.isInteger(batch) && batch >= 1)) throw new GraphError(`decode graph: batch must be a positive integer, got ${batch}`, 'Generator');
  const g = new Graph();
  const token = g.input(TOKEN, [batch], 'i32');
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

/** The decode feeds for `token` (one per row, or one for a single-row graph) at `pos` (into reusable arrays when given). */
export function decodeFeeds(
  token: number | ArrayLike<number>,
  pos: number,
  maxLen: number,
  into?: { token: Int32Array; pos: Int32Array; mask: Float32Array },
): Record<string, Int32Array | Float32Array> {
  const rows = typeof token === 'number' ? 1 : token.length;
  const f = into ?? { token: new Int32Array(rows), pos: new Int32Array(1), mask: new Float32Array(maxLen) };
  if (typeof token === 'number') f.token[0] = token;
  else f.token.set(token);
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
  const batch = opts.batch ?? 1;
  const { graph, logits } = buildDecodeGraph(model, maxLen, batch);
  const session = await compileInference(graph, { outputs: { logits }, device: opts.device, optimize: opts.optimize, ...(opts.fallback ? { fallback: opts.fallback } : {}), ...(opts.weights ? { weights: opts.weights } : {}) });
  return new Generator(model, session, maxLen, batch, opts.weights ?? 'f32');
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
    /** Rows decoded together (`generateBatch` takes up to this many prompts). */
    readonly batch = 1,
    /** How Linear weights are stored (`GeneratorOptions.weights`). */
    readonly weights: WeightFormat = 'f32',
  ) {
    this.feeds = { token: new Int32Array(batch), pos: new Int32Array(1), mask: new Float32Array(maxLen) };
    this.spec = model.stateDictSpec();
  }

  /**
   * Loads the model's weights (e.g. a TrainingSession's `stateDict()`); every model leaf must be present. With
   * quantized `weights`, a weight may come as f32 (quantized as it loads) or already packed: its two `quantNames`
   * leaves in that format (as `loadGguf` gives them).
   */
  async loadStateDict(values: Record<string, TensorValue>): Promise<void> {
    // a weight given packed needs both leaves (shapes are checked by the session); a lone leaf stays unknown
    const leaf = (name: string) => /^(.+)\.(q8_0|q4_0)\.(qs|d)$/.exec(name);
    const packed = new Set(
      Object.keys(values).flatMap((name) => {
        const m = leaf(name);
        return m && m[2] === this.weights && m[3] === 'qs' && this.spec.has(m[1]) && `${m[1]}.${m[2]}.d` in values ? [m[1]] : [];
      }),
    );
    const plain = Object.fromEntries(
      Object.entries(values).filter(([name]) => {
        const m = leaf(name);
        return !(m && m[2] === this.weights && packed.has(m[1]));
      }),
    );
    const spec = packed.size ? new Map([...this.spec].filter(([n]) => !packed.has(n))) : this.spec;
    checkStateDict(spec, plain, { what: 'Generator.loadStateDict' });
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

  /** One step with `token` in row 0 (other rows of a batched graph get token 0 and are not read): row 0's logits. */
  private async stepCache(token: number, pos: number, read: boolean): Promise<Float32Array | undefined> {
    if (!(Number.isInteger(token) && token >= 0 && token < this.model.vocab)) throw new RangeError(`Generator.step: token ${token} is outside the vocabulary [0, ${this.model.vocab})`);
    this.feeds.token.fill(0);
    const logits = await this.stepRows(token, pos, read);
    return logits && this.batch > 1 ? logits.subarray(0, this.model.vocab) : logits;
  }

  /** One step of every row (`tokens` already checked, or one token for row 0): the [B·V] logits if `read`. */
  private async stepRows(tokens: number | ArrayLike<number>, pos: number, read: boolean): Promise<Float32Array | undefined> {
    if (!(Number.isInteger(pos) && pos >= 0 && pos < this.maxLen)) throw new RangeError(`Generator.step: position ${pos} is outside the cache [0, ${this.maxLen})`);
    const feeds = decodeFeeds(tokens, pos, this.maxLen, this.feeds);
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

  /**
   * Generates after each of up to `batch` prompts (lengths may differ) in one pass of batched steps; resolves to
   * each prompt's tokens. Row i yields what `generate(prompts[i], { ...opts, seed: seeds[i] })` yields alone.
   */
  async generateBatch(prompts: readonly ArrayLike<number>[], opts: GenerateBatchOptions): Promise<number[][]> {
    const out: number[][] = prompts.map(() => []);
    for await (const step of this.generateBatchSteps(prompts, opts))
      for (let i = 0; i < step.length; i++) if (step[i] !== undefined) out[i].push(step[i] as number);
    return out;
  }

  /**
   * The same as a stream of steps: each step yields one entry per prompt, the token that row produced then, or
   * undefined (a row still reading its prompt, or finished). Rows run in lockstep from position 0, so a row's
   * K/V sit where they would alone; when the cache is full every live row restarts from its last half (as `generate`).
   */
  async *generateBatchSteps(prompts: readonly ArrayLike<number>[], opts: GenerateBatchOptions): AsyncGenerator<(number | undefined)[], void, undefined> {
    checkSampling(opts);
    const vocab = this.model.vocab;
    if (prompts.length === 0) throw new RangeError('generateBatch: no prompts (give between 1 and the batch of prompts)');
    if (prompts.length > this.batch) throw new RangeError(`generateBatch: ${prompts.length} prompts exceed the generator's batch of ${this.batch} (compileGenerator(model, { batch }))`);
    if (!(Number.isInteger(opts.maxTokens) && opts.maxTokens >= 0)) throw new RangeError(`generateBatch: maxTokens must be a non-negative integer, got ${opts.maxTokens}`);
    if (opts.seeds !== undefined && opts.seeds.length !== prompts.length) throw new RangeError(`generateBatch: ${opts.seeds.length} seeds for ${prompts.length} prompts`);
    const rows = prompts.map((p, r) => {
      const seq: number[] = Array.from(p);
      if (seq.length === 0) throw new RangeError(`generateBatch: prompt ${r} is empty (give at least one token)`);
      if (seq.length > this.maxLen) throw new RangeError(`generateBatch: prompt ${r} has ${seq.length} tokens, more than the cache of ${this.maxLen} (compileGenerator's maxLen)`);
      seq.forEach((t, i) => {
        if (!(Number.isInteger(t) && t >= 0 && t < vocab)) throw new RangeError(`generateBatch: prompt ${r} id ${t} at position ${i} is not an integer in the vocabulary [0, ${vocab})`);
      });
      return { seq, produced: 0, done: opts.maxTokens === 0, rng: new Rng(opts.seeds?.[r] ?? opts.seed ?? 0) };
    });
    const stop = new Set(opts.stop ?? []);
    const tokens = new Int32Array(this.batch); // rows past the prompts, and finished rows, feed token 0 (never read)
    const feed = (pos: number) => {
      rows.forEach((row, r) => {
        tokens[r] = row.done ? 0 : row.seq[pos];
      });
      return tokens;
    };
    const me = {}; // this batch, as the cache's owner
    // Invariant: at position `pos` every live row has seq.length − 1 ≥ pos (its tokens before pos are in the cache).
    for (let pos = 0; rows.some((row) => !row.done); ) {
      const read = rows.some((row) => !row.done && row.seq.length - 1 === pos);
      const logits = await this.exclusive(me, async (owned) => {
        // another stream wrote the cache since our last step: re-run every row's tokens before `pos`
        if (!owned) for (let p = 0; p < pos; p++) await this.stepRows(feed(p), p, false);
        return this.stepRows(feed(pos), pos, read);
      });
      const step: (number | undefined)[] = rows.map(() => undefined);
      rows.forEach((row, r) => {
        if (row.done || row.seq.length - 1 !== pos) return;
        const next = sampleToken((logits as Float32Array).subarray(r * vocab, (r + 1) * vocab), opts, row.rng);
        step[r] = next;
        row.produced++;
        if (stop.has(next) || row.produced === opts.maxTokens) row.done = true;
        else row.seq.push(next);
      });
      if (read) yield step;
      pos++;
      if (pos === this.maxLen && rows.some((row) => !row.done)) {
        // every live row now holds maxLen + 1 tokens (prompts fit the cache, and rows sample once past them):
        // all keep their last half and re-run it from position 0, as `generate` does alone
        for (const row of rows) if (!row.done) row.seq.splice(0, row.seq.length - Math.max(1, Math.floor(this.maxLen / 2)));
        pos = 0;
      }
    }
  }

  /** Frees the decode session. */
  dispose(): void {
    this.session.dispose();
  }
}
