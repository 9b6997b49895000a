// @neura/nn/tokenizer: Hugging Face tokenizers (tokenizer.json) and chat templates. Browser-safe; a subpath of its
// own so `@neura/nn` does not carry `@huggingface/tokenizers` and `@huggingface/jinja` (~220 KB unminified).
// Reading the files from disk is `loadTokenizer` in `@neura/nn/node`.

export { type ChatMessage, ChatTemplate, type ChatTemplateOptions } from './tokenizer/chatTemplate.js';
export { type DecodeOptions, type EncodeOptions, Tokenizer } from './tokenizer/tokenizer.js';
export { TokenizerError } from './tokenizer/tokenizerError.js';
export type { TextTokenizer } from './data/textTokenizer.js';
