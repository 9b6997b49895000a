// Text generation with any `TextTokenizer` (CharTokenizer, a Hugging Face Tokenizer): encodes the prompt, streams
// the generator's ids and yields text pieces. A piece is what decoding all ids so far adds to the text already
// yielded, held back while the text ends in U+FFFD (an unfinished UTF-8 character from byte-fallback tokens), as
// transformers' TextStreamer does. Decoding all ids per token is O(n²) in the output; fine at sampling lengths.

import type { TextTokenizer } from '../data/textTokenizer.js';
import type { GenerateOptions, Generator } from './generator.js';

/** Streams the text that `gen` generates after `prompt` (text, encoded by `tokenizer`, or ids), piece by piece. */
export async function* generateText(
  gen: Pick<Generator, 'generate'>,
  tokenizer: TextTokenizer,
  prompt: string | ArrayLike<number>,
  opts: GenerateOptions,
): AsyncGenerator<string, void, undefined> {
  const ids = Array.from(typeof prompt === 'string' ? tokenizer.encode(prompt) : prompt);
  // decoding the prompt with what follows keeps context-dependent decoders (a leading-space strip) right
  let emitted = tokenizer.decode(ids).length;
  let text = '';
  for await (const id of gen.generate(ids, opts)) {
    ids.push(id);
    text = tokenizer.decode(ids);
    if (text.endsWith('\uFFFD')) continue; // wait for the character's other bytes
    if (text.length > emitted) yield text.slice(emitted);
    emitted = text.length;
  }
  if (text.length > emitted) yield text.slice(emitted); // a character left unfinished when generation stopped
}
