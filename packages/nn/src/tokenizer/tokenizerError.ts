// The error of loading or using a Hugging Face tokenizer: a malformed tokenizer.json or tokenizer_config.json, an
// unknown special token, an id outside the vocabulary, a chat template that does not parse or that raises.
// Messages name the file and the field (or the id and its position) at fault.

/** A tokenizer that cannot be built or used as asked; the message names the field, token or id at fault. */
export class TokenizerError extends Error {
  override readonly name: string = 'TokenizerError';
}
