// The error every graph-building and validation failure throws: it names the op, the operands' shapes and
// the place in user code that built the node, so a message reads like a compiler diagnostic.

/** A graph construction or validation error, with the op and the user's call site. */
export class GraphError extends Error {
  /** Always `'GraphError'`, so errors can be told apart after serialisation. */
  override readonly name = 'GraphError';
  constructor(
    message: string,
    /** The op whose construction failed, when there is one. */
    readonly op?: string,
    /** `file:line:col` of the user's call that built the node. */
    readonly site?: string,
  ) {
    super(site ? `${message}\n    built at ${site}` : message);
  }
}

/** The first stack frame outside neura's own packages: where the user built a node. */
export function userCallSite(): string | undefined {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const line of stack) {
    if (/[\\/]packages[\\/](ir|autograd|optim|egraph|nn)[\\/]src[\\/]/.test(line)) continue;
    if (/node_modules|node:internal/.test(line)) continue;
    const m = line.match(/\(?([^\s()]+:\d+:\d+)\)?\s*$/);
    if (m) return m[1];
  }
  return undefined;
}
