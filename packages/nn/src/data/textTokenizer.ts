// The tokenizer interface that text datasets and generation take: text → Int32Array of ids, ids → text, and the
// vocabulary size a model's embedding needs. `CharTokenizer` and the Hugging Face `Tokenizer` (`@neura/nn/tokenizer`)
// both implement it. Type only: nothing here may import a tokenizer implementation (the core bundle stays small).

/** Text ↔ ids over a fixed vocabulary; what `generateText` and LM data pipelines take. */
export interface TextTokenizer {
  /** Every id is in [0, vocabSize): the model's vocabulary (embedding rows, logits). */
  readonly vocabSize: number;
  /** Text → ids. */
  encode(text: string): Int32Array;
  /** Ids → text. */
  decode(ids: readonly number[] | Int32Array): string;
}
