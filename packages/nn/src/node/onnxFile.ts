// Node-only: reads an .onnx file from disk and imports it (see `importOnnx` in `@neura/nn/onnx`).
// Only file IO lives here; parsing and mapping stay browser-safe in src/onnx/.

import { readFile } from 'node:fs/promises';
import { importOnnx, type OnnxImport, type OnnxImportOptions } from '../onnx/importOnnx.js';

/** Reads and imports an ONNX model file; errors name the path. */
export async function loadOnnxFile(path: string, opts: OnnxImportOptions = {}): Promise<OnnxImport> {
  const bytes = await readFile(path);
  return importOnnx(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), opts);
}
