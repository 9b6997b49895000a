// The f64 interpreter (measure's `checkInterpreter`, chooseStep.ts) and the matmul tuner (`autotune`,
// matmulAutotune.ts), loaded by dynamic import() only when an option asks for them. Their own module, not optIn.ts:
// the compile path that imports them is itself reachable from optIn.ts (measure's chooseStep), and an import back
// into optIn.ts would be a cycle. Re-exports only.

export { interpret } from '@neura/ir';
export { matmulShapesOf, tuneMatmul } from '@neura/runtime-webgpu';
