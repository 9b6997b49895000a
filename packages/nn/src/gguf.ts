// @neura/nn/gguf: loading GGUF files (llama.cpp's format: LLaMA models in F32, F16, Q8_0 and Q4_0). A subpath of its
// own so that @neura/nn does not carry the GGUF header parser (@huggingface/gguf); browser-safe (no `node:` import:
// pass the bytes or a Blob / File; in Node, `fs.openAsBlob(path)`).

export { GgufError } from './gguf/ggufError.js';
export { type GgufMetadata, hfNameOf, hfRowOrder } from './gguf/ggufLlama.js';
export { type GgufLoadOptions, type GgufModel, type GgufSource, type GgufTensor, loadGguf } from './gguf/loadGguf.js';
