// Hugging Face tokenizers: two tiny tokenizers (a GPT-2-style byte-level BPE and a LLaMA-2-style metaspace BPE with
// byte fallback) encode and decode every test string (ASCII, accents, emoji, CJK, whitespace runs, special tokens)
// exactly as Hugging Face's Rust `tokenizers` does, and the chat template renders as transformers' jinja2 setup does.
// Fixtures: tooling/fixtures/tokenizers/ (expected.json's `versions` says which generator wrote them:
// tokenizer_fixtures.py with Python tokenizers/transformers, or tokenizer_fixtures_rust.mjs with the npm binding of
// the same Rust crate + jinja2). Malformed files fail naming the field.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CharTokenizer, type GenerateOptions, generateText, type TextTokenizer } from '@neura/nn';
import { loadTokenizer } from '@neura/nn/node';
import { type ChatMessage, Tokenizer, TokenizerError } from '@neura/nn/tokenizer';
import { describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('../../../tooling/fixtures/tokenizers/', import.meta.url));
const readJson = (p: string) => JSON.parse(readFileSync(DIR + p, 'utf8'));

interface Case {
  text: string;
  ids: number[];
  idsNoSpecial: number[];
  decoded: string;
  decodedSkipSpecial: string;
}
interface Expected {
  vocabSize: number;
  specialIds: Record<'bos_token' | 'eos_token' | 'pad_token' | 'unk_token', number | null>;
  cases: Case[];
  chats: { messages: ChatMessage[]; addGenerationPrompt: boolean; text: string; ids: number[] }[];
}
const expected: Record<'gpt2' | 'llama', Expected> = readJson('expected.json');

describe.each(['gpt2', 'llama'] as const)('the %s tokenizer, against Hugging Face tokenizers', (name) => {
  const want = expected[name];

  it('loads from its folder with the vocabulary size and special token ids the reference reports', async () => {
    const tok = await loadTokenizer(DIR + name);
    expect(tok.vocabSize).toBe(want.vocabSize);
    expect([tok.bosTokenId, tok.eosTokenId, tok.padTokenId, tok.unkTokenId]).toEqual([want.specialIds.bos_token, want.specialIds.eos_token, want.specialIds.pad_token, want.specialIds.unk_token]);
  });

  const tok = Tokenizer.fromJSON(readJson(`${name}/tokenizer.json`), readJson(`${name}/tokenizer_config.json`));
  it.each(want.cases.map((c) => [JSON.stringify(c.text), c] as const))('encodes and decodes %s as the reference does', (_, c) => {
    expect(Array.from(tok.encode(c.text))).toEqual(c.ids);
    expect(Array.from(tok.encode(c.text, { addSpecialTokens: false }))).toEqual(c.idsNoSpecial);
    expect(tok.decode(c.ids)).toBe(c.decoded);
    expect(tok.decode(Int32Array.from(c.ids), { skipSpecialTokens: true })).toBe(c.decodedSkipSpecial);
  });
});

describe('chat templates', () => {
  const tok = Tokenizer.fromJSON(readJson('llama/tokenizer.json'), readJson('llama/tokenizer_config.json'));

  it.each(expected.llama.chats.map((c, i) => [i, c.addGenerationPrompt, c] as const))('renders conversation %i (generation prompt %s) as the reference does', (_, gen, c) => {
    expect(tok.applyChatTemplate(c.messages, { addGenerationPrompt: gen })).toBe(c.text);
    expect(Array.from(tok.encodeChat(c.messages, { addGenerationPrompt: gen }))).toEqual(c.ids);
  });

  it("surfaces the template's raise_exception and a missing template as TokenizerError", () => {
    expect(() => tok.applyChatTemplate([{ role: 'robot', content: 'x' }])).toThrow(/chat template failed: Unknown role: robot/);
    const gpt2 = Tokenizer.fromJSON(readJson('gpt2/tokenizer.json'), readJson('gpt2/tokenizer_config.json'));
    expect(() => gpt2.applyChatTemplate([{ role: 'user', content: 'x' }])).toThrow(TokenizerError);
    expect(() => gpt2.applyChatTemplate([{ role: 'user', content: 'x' }])).toThrow(/has no chat_template/);
    expect(() => Tokenizer.fromJSON(readJson('gpt2/tokenizer.json'), { chat_template: '{% for m in messages %}' })).toThrow(/chat_template does not parse/);
  });
});

describe('malformed tokenizer files', () => {
  const good = () => readJson('llama/tokenizer.json');
  const cases: [string, (j: Record<string, unknown>) => unknown, RegExp][] = [
    ['not an object', () => [1, 2], /tokenizer.json must be a JSON object, got an array/],
    ['no model', (j) => ({ ...j, model: undefined }), /"model" must be an object, got undefined/],
    ['an unsupported model type', (j) => ({ ...j, model: { ...(j.model as object), type: 'WordLevel' } }), /model.type "WordLevel" is not supported/],
    ['a vocab that is not an object', (j) => ({ ...j, model: { ...(j.model as object), vocab: [] } }), /model.vocab must be an object of token → id, got an array/],
    ['a negative id', (j) => ({ ...j, model: { ...(j.model as object), vocab: { a: -1 } } }), /model.vocab\["a"\] must be a non-negative integer id, got -1/],
    ['two tokens with one id', (j) => ({ ...j, model: { ...(j.model as object), vocab: { a: 0, b: 0 } } }), /gives id 0 to both "a" and "b"/],
    ['a bad merge', (j) => ({ ...j, model: { ...(j.model as object), merges: [['a', 'b'], ['c']] } }), /model.merges\[1\] must be "a b" or \["a", "b"\], got \["c"\]/],
    ['bad added tokens', (j) => ({ ...j, added_tokens: [{ id: 'x', content: '<s>' }] }), /added_tokens\[0\] must be \{ id: non-negative integer/],
    ['an unknown stage type', (j) => ({ ...j, decoder: { type: 'Nope' } }), /tokenizer.json: Unknown Decoder type: Nope/],
  ];
  it.each(cases)('rejects %s, naming the field', (_, edit, msg) => {
    expect(() => Tokenizer.fromJSON(edit(good()))).toThrow(TokenizerError);
    expect(() => Tokenizer.fromJSON(edit(good()))).toThrow(msg);
  });

  it('rejects a special token the vocabulary lacks, a bad id to decode, and a folder without tokenizer.json', async () => {
    expect(() => Tokenizer.fromJSON(good(), { eos_token: '<|im_end|>' })).toThrow(/eos_token "<\|im_end\|>" is not a token of tokenizer.json/);
    const tok = Tokenizer.fromJSON(good());
    expect(() => tok.decode([5, tok.vocabSize])).toThrow(new RegExp(`id ${tok.vocabSize} at 1 is not in the vocabulary \\[0, ${tok.vocabSize}\\)`));
    expect(tok.decode([])).toBe('');
    await expect(loadTokenizer(`${DIR}missing`)).rejects.toThrow(/loadTokenizer: cannot read .*missing\/tokenizer.json/);
  });
});

describe('TextTokenizer: CharTokenizer and Tokenizer alike', () => {
  // A stand-in generator that replays fixed ids (generateText's own logic is under test, not the model).
  const replay = (out: readonly number[]) => ({
    async *generate(prompt: ArrayLike<number>, opts: GenerateOptions) {
      expect(prompt.length).toBeGreaterThan(0);
      for (const id of out.slice(0, opts.maxTokens)) yield id;
    },
  });
  const collect = async (tok: TextTokenizer, prompt: string, out: number[]) => {
    const pieces: string[] = [];
    for await (const p of generateText(replay(out), tok, prompt, { maxTokens: out.length, temperature: 0 })) pieces.push(p);
    return pieces;
  };

  it('streams the text of generated ids, holding back a character split over byte-fallback tokens', async () => {
    const llama = Tokenizer.fromJSON(readJson('llama/tokenizer.json'), readJson('llama/tokenizer_config.json'));
    // the normalizer prepends ▁ to the encoded text: after the prompt it decodes as one space
    const out = Array.from(llama.encode('and café 🦀 日本', { addSpecialTokens: false }));
    const pieces = await collect(llama, 'Hello', out);
    expect(pieces.join('')).toBe(' and café 🦀 日本');
    expect(pieces.every((p) => !p.includes('\uFFFD'))).toBe(true);
    expect(pieces.length).toBeLessThan(out.length); // 🦀 is four byte tokens yielded as one piece
    const chars = CharTokenizer.fromText('abc ');
    expect(chars.vocabSize).toBe(4);
    expect((await collect(chars, 'ab', Array.from(chars.encode('c ba')))).join('')).toBe('c ba');
  });
});
