// Dawn's null backend (`--null-device`): an adapter that validates and records everything but runs no GPU
// work, so a step's time on it is the host's share alone (feed checks and uploads, encoding, submit, polling).

/** A `GPU` whose adapter is Dawn's null backend (`options`: more Dawn options, e.g. toggles). */
export async function nullGpu(options: readonly string[] = []): Promise<GPU> {
  const spec = 'webgpu';
  const dawn = (await import(/* @vite-ignore */ spec)) as { create: (options: string[]) => GPU; globals: object };
  Object.assign(globalThis, dawn.globals);
  return dawn.create(['backend=null', ...options]);
}
