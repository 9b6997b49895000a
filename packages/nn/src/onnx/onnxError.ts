// The one error type of the ONNX importer: a malformed file, an unsupported op, or a model the importer cannot
// make static. Its message names what is wrong (the op type, node name and opset for an op; the field for a file).

/** An ONNX model that cannot be imported: the message says which part and why. */
export class OnnxImportError extends Error {
  override readonly name = 'OnnxImportError';
}
