// @neura/nn/onnx: importing ONNX models. A subpath of its own because it brings a protobuf runtime (onnx-proto,
// protobufjs) that the main entry does not need; browser-safe (no `node:` import). File reading: `@neura/nn/node`.

export { importOnnx, ONNX_OPSETS, type OnnxImport, type OnnxImportOptions } from './onnx/importOnnx.js';
export { OnnxImportError } from './onnx/onnxError.js';
export { ONNX_OPS, type OpContext, type OpResult, type OpRule } from './onnx/onnxOps.js';
