// The demo's model menu: which models the page offers. Its own file (no imports) so the page's main bundle stays
// small: the page trains the MNIST models in a worker and loads the rest of neura only for the GPT.

/** Which model the page trains. */
export type ModelKind = 'mlp' | 'cnn' | 'gpt';

/** The model choices shown in the page's menu. */
export const MODELS: Readonly<Record<ModelKind, string>> = {
  mlp: 'MLP 784-128-10 on MNIST (Adam)',
  cnn: 'CNN: 2×(conv 5×5, ReLU, max-pool) + linear, on MNIST (Adam)',
  gpt: 'char-level GPT: 2 layers, 2 heads, width 64, context 32 (AdamW)',
};
