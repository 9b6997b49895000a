// The error of reading a GGUF file: a malformed file, an architecture or metadata value neura cannot reproduce, or a
// tensor of a type it does not read. Its message names the tensor or key at fault.

/** A GGUF file neura cannot load; `tensor` or `key` names what is at fault. */
export class GgufError extends Error {
  /** Always `'GgufError'`. */
  override readonly name = 'GgufError';
  constructor(
    message: string,
    /** Where the fault is: a tensor name or a metadata key (undefined for the file as a whole). */
    readonly where?: string,
  ) {
    super(message);
  }
}
