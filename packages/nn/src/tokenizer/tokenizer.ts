// A Hugging Face tokenizer (tokenizer.json + tokenizer_config.json) run by npm `@huggingface/tokenizers`, the pure
// JS/TS port Hugging Face maintains for Transformers.js (no dependencies, no onnxruntime, ~100 KB unminified, works in
// browsers), with chat templates by `@huggingface/jinja`. Chosen over a hand-written BPE: it follows the Rust
// library's normalizers, pre-tokenizers (Oniguruma regexes translated), byte fallback and decoders. This file only
// checks the JSON (errors name the field), converts ids to Int32Array and resolves special tokens; it sits behind
// the `@neura/nn/tokenizer` subpath so the core bundle does not carry it.

import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import type { TextTokenizer } from '../data/textTokenizer.js';
import { type ChatMessage, ChatTemplate, type ChatTemplateOptions } from './chatTemplate.js';
import { TokenizerError } from './tokenizerError.js';

/** Options of `Tokenizer.encode`. */
export interface EncodeOptions {
  /** Add the post-processor's special tokens (e.g. LLaMA's leading <s>); default true, as in Hugging Face. */
  addSpecialTokens?: boolean;
}

/** Options of `Tokenizer.decode`. */
export interface DecodeOptions {
  /** Drop special tokens (bos, eos, ...) from the text; default false. */
  skipSpecialTokens?: boolean;
}

/** The special tokens tokenizer_config.json names, and how `Tokenizer` exposes them. */
const SPECIAL_KEYS = ['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const;

/** Model types `@huggingface/tokenizers` 0.2 implements (others fail at load, naming the type). */
const MODEL_TYPES = ['BPE', 'WordPiece', 'Unigram'];

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** Checks the parts of tokenizer.json the library trusts without checking; a missing pipeline stage becomes null. */
function checkTokenizerJson(json: unknown): Json {
  if (!isObject(json)) throw new TokenizerError(`tokenizer.json must be a JSON object, got ${kind(json)}`);
  const model = json.model;
  if (!isObject(model)) throw new TokenizerError(`tokenizer.json: "model" must be an object, got ${kind(model)}`);
  const type = model.type;
  if (type !== undefined && !MODEL_TYPES.includes(type as string))
    throw new TokenizerError(`tokenizer.json: model.type ${JSON.stringify(type)} is not supported (supported: ${MODEL_TYPES.join(', ')})`);
  const vocab = model.vocab;
  if (type === 'Unigram') {
    if (!Array.isArray(vocab)) throw new TokenizerError(`tokenizer.json: model.vocab of a Unigram model must be an array of [piece, score], got ${kind(vocab)}`);
  } else {
    if (!isObject(vocab)) throw new TokenizerError(`tokenizer.json: model.vocab must be an object of token → id, got ${kind(vocab)}`);
    const seen = new Map<number, string>();
    for (const [token, id] of Object.entries(vocab)) {
      if (!(Number.isInteger(id) && (id as number) >= 0)) throw new TokenizerError(`tokenizer.json: model.vocab[${JSON.stringify(token)}] must be a non-negative integer id, got ${JSON.stringify(id)}`);
      const other = seen.get(id as number);
      if (other !== undefined) throw new TokenizerError(`tokenizer.json: model.vocab gives id ${id} to both ${JSON.stringify(other)} and ${JSON.stringify(token)}`);
      seen.set(id as number, token);
    }
  }
  if (type === 'BPE') {
    const merges = model.merges;
    if (!Array.isArray(merges)) throw new TokenizerError(`tokenizer.json: model.merges of a BPE model must be an array, got ${kind(merges)}`);
    merges.forEach((m, i) => {
      const ok = (typeof m === 'string' && m.split(' ').length === 2) || (Array.isArray(m) && m.length === 2 && m.every((p) => typeof p === 'string'));
      if (!ok) throw new TokenizerError(`tokenizer.json: model.merges[${i}] must be "a b" or ["a", "b"], got ${JSON.stringify(m)}`);
    });
  }
  const added = json.added_tokens ?? [];
  if (!Array.isArray(added)) throw new TokenizerError(`tokenizer.json: "added_tokens" must be an array, got ${kind(added)}`);
  added.forEach((t, i) => {
    if (!(isObject(t) && Number.isInteger(t.id) && (t.id as number) >= 0 && typeof t.content === 'string'))
      throw new TokenizerError(`tokenizer.json: added_tokens[${i}] must be { id: non-negative integer, content: string, ... }, got ${JSON.stringify(t)}`);
  });
  // the library requires every stage key; Python writes null for an absent stage, so a missing key means the same
  const stages = Object.fromEntries(['normalizer', 'pre_tokenizer', 'post_processor', 'decoder'].map((k) => [k, json[k] ?? null]));
  return { ...json, ...stages, added_tokens: added };
}

/** A special token's text in tokenizer_config.json: a string, or an AddedToken object `{ content }`. */
function specialText(config: Json, key: string): string | null {
  const v = config[key];
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (isObject(v) && typeof v.content === 'string') return v.content;
  throw new TokenizerError(`tokenizer_config.json: ${key} must be a string or { content: string }, got ${JSON.stringify(v)}`);
}

/** A Hugging Face tokenizer: `encode` text to Int32Array ids, `decode` ids to text, `applyChatTemplate`. */
export class Tokenizer implements TextTokenizer {
  /** Every id is below this (the largest id plus one, added tokens included). */
  readonly vocabSize: number;
  /** Beginning-of-sequence token id (tokenizer_config.json's bos_token), or null. */
  readonly bosTokenId: number | null;
  /** End-of-sequence token id, or null. */
  readonly eosTokenId: number | null;
  /** Padding token id, or null. */
  readonly padTokenId: number | null;
  /** Unknown-token id, or null. */
  readonly unkTokenId: number | null;
  /** The chat template of tokenizer_config.json, or null when it has none. */
  readonly chatTemplate: ChatTemplate | null;

  private constructor(
    private readonly hf: HfTokenizer,
    config: Json,
  ) {
    const vocab = hf.get_vocab(true);
    let max = -1;
    for (const id of vocab.values()) max = Math.max(max, id);
    this.vocabSize = max + 1;
    const specials: Record<string, string> = {};
    const ids: Record<string, number | null> = {};
    for (const key of SPECIAL_KEYS) {
      const text = specialText(config, key);
      if (text === null) {
        ids[key] = null;
        continue;
      }
      const id = hf.token_to_id(text);
      if (id === undefined) throw new TokenizerError(`tokenizer_config.json: ${key} ${JSON.stringify(text)} is not a token of tokenizer.json`);
      ids[key] = id;
      specials[key] = text;
    }
    [this.bosTokenId, this.eosTokenId, this.padTokenId, this.unkTokenId] = SPECIAL_KEYS.map((k) => ids[k]);
    const tpl = config.chat_template;
    this.chatTemplate = tpl === undefined || tpl === null ? null : new ChatTemplate(chatTemplateSource(tpl), specials);
  }

  /** A tokenizer from the parsed tokenizer.json and (optional) tokenizer_config.json. */
  static fromJSON(tokenizerJson: unknown, tokenizerConfig: unknown = {}): Tokenizer {
    const json = checkTokenizerJson(tokenizerJson);
    if (!isObject(tokenizerConfig)) throw new TokenizerError(`tokenizer_config.json must be a JSON object, got ${kind(tokenizerConfig)}`);
    let hf: HfTokenizer;
    try {
      hf = new HfTokenizer(json, tokenizerConfig);
    } catch (e) {
      throw new TokenizerError(`tokenizer.json: ${(e as Error).message}`);
    }
    return new Tokenizer(hf, tokenizerConfig);
  }

  /** Text → ids (with the post-processor's special tokens unless `addSpecialTokens: false`). */
  encode(text: string, opts: EncodeOptions = {}): Int32Array {
    if (typeof text !== 'string') throw new TokenizerError(`encode: text must be a string, got ${kind(text)}`);
    const { ids, tokens } = this.hf.encode(text, { add_special_tokens: opts.addSpecialTokens ?? true });
    const out = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      // a piece the model has no id for and no unk token to stand in (the library gives undefined)
      if (ids[i] === undefined) throw new TokenizerError(`encode: token ${JSON.stringify(tokens[i])} at ${i} has no id and the model has no unk_token`);
      out[i] = ids[i];
    }
    return out;
  }

  /** Ids → text; an id outside [0, vocabSize) is an error naming it and its position. */
  decode(ids: readonly number[] | Int32Array, opts: DecodeOptions = {}): string {
    const list = Array.from(ids);
    list.forEach((id, i) => {
      if (!(Number.isInteger(id) && id >= 0 && id < this.vocabSize && this.hf.id_to_token(id) !== undefined))
        throw new TokenizerError(`decode: id ${id} at ${i} is not in the vocabulary [0, ${this.vocabSize})`);
    });
    if (list.length === 0) return ''; // the library refuses an empty list
    return this.hf.decode(list, { skip_special_tokens: opts.skipSpecialTokens ?? false });
  }

  /** The token string of an id, or undefined. */
  idToToken(id: number): string | undefined {
    return this.hf.id_to_token(id);
  }

  /** The id of a token string (added tokens included), or undefined. */
  tokenToId(token: string): number | undefined {
    return this.hf.token_to_id(token);
  }

  /** A conversation as prompt text, by tokenizer_config.json's chat_template (as transformers' `apply_chat_template`). */
  applyChatTemplate(messages: readonly ChatMessage[], opts: ChatTemplateOptions = {}): string {
    if (this.chatTemplate === null) throw new TokenizerError('applyChatTemplate: tokenizer_config.json has no chat_template');
    return this.chatTemplate.render(messages, opts);
  }

  /** The chat template's text encoded without adding special tokens (the template writes them), as transformers does. */
  encodeChat(messages: readonly ChatMessage[], opts: ChatTemplateOptions = {}): Int32Array {
    return this.encode(this.applyChatTemplate(messages, opts), { addSpecialTokens: false });
  }
}

/** The default template of a chat_template field: a string, or transformers' list of named templates. */
function chatTemplateSource(tpl: unknown): string {
  if (typeof tpl === 'string') return tpl;
  if (Array.isArray(tpl)) {
    const named = tpl.find((t) => isObject(t) && t.name === 'default');
    if (named && typeof named.template === 'string') return named.template;
  }
  throw new TokenizerError(`tokenizer_config.json: chat_template must be a string or a list holding { name: "default", template }, got ${kind(tpl)}`);
}
