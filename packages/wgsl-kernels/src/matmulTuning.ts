// Per-shape matmul choices measured on a device (`tuneMatmul` in the runtime): a table from a matmul's shape key to
// the name of a tiled configuration, or `default` (the heuristic: skinny / split-K / MATMUL_CONFIGS' order, which
// lets a user's or a cache's choice override a shipped entry), consulted by `matmulKernel` before its heuristic.
// Which table applies on which adapter (shipped tables, user tables, caches) is the runtime's business.
// Invariant: an entry is either applied or an error (unknown name, or a configuration the device cannot run);
// never silently ignored.

import { type DeviceCaps, KernelError, type KernelPlan, type KernelSpec, type MatmulTuning } from './kernel.js';
import { MATMUL_CANDIDATES, MATMUL_CONFIGS, type MatmulConfig, type MatmulOp, type MatmulProblem, type MatmulShape, matmulConfigFits, matmulConfigName, matmulKernel, matmulPlanWith, matmulProblemOf, sharedBytesOf } from './matmul.js';
import { kernelGroup } from './lazyKernels.js';
import { kernelError } from './wgsl.js';

/** The table value that selects the shipped heuristic for a shape (measured: no candidate beat it). */
export const MATMUL_HEURISTIC = 'default';

/** The key of a shape in a `MatmulTuning` table, e.g. `64x32x48:NT:b1`. */
export const matmulShapeKey = (s: MatmulShape) => `${s.m}x${s.n}x${s.k}:${s.transA ? 'T' : 'N'}${s.transB ? 'T' : 'N'}:b${s.batches ?? 1}`;

/** The shape of a matmul problem (what its tuning entry is keyed by). */
export const shapeOfProblem = (p: MatmulProblem): MatmulShape => ({ m: p.M, n: p.N, k: p.K, transA: p.transA, transB: p.transB, batches: p.batches });

/** Every named tiled configuration (candidates and shipped defaults), by `matmulConfigName`. */
export const MATMUL_CONFIG_BY_NAME: ReadonlyMap<string, MatmulConfig> = new Map([...MATMUL_CANDIDATES, ...MATMUL_CONFIGS].map((c) => [matmulConfigName(c), { ...c, minTiles: 0 }]));

/** Why `cfg` cannot run on `caps` (the limit and its device value), or undefined when it fits. */
export function misfitOf(cfg: MatmulConfig, caps: DeviceCaps): string | undefined {
  if (matmulConfigFits(cfg, caps)) return undefined;
  const threads = (cfg.bm / cfg.tm) * (cfg.bn / cfg.tn);
  const why: string[] = [];
  if (threads > caps.maxComputeInvocationsPerWorkgroup) why.push(`${threads} invocations > maxComputeInvocationsPerWorkgroup (device value ${caps.maxComputeInvocationsPerWorkgroup})`);
  if (cfg.bn / cfg.tn > caps.maxComputeWorkgroupSizeX) why.push(`workgroup x ${cfg.bn / cfg.tn} > maxComputeWorkgroupSizeX (device value ${caps.maxComputeWorkgroupSizeX})`);
  if (cfg.bm / cfg.tm > caps.maxComputeWorkgroupSizeY) why.push(`workgroup y ${cfg.bm / cfg.tm} > maxComputeWorkgroupSizeY (device value ${caps.maxComputeWorkgroupSizeY})`);
  if (sharedBytesOf(cfg) > caps.maxComputeWorkgroupStorageSize) why.push(`${sharedBytesOf(cfg)} bytes of workgroup memory > maxComputeWorkgroupStorageSize (device value ${caps.maxComputeWorkgroupStorageSize})`);
  return why.join('; ');
}

/** The configuration a table entry names (undefined: the heuristic), or why it cannot apply on `caps` (an unknown name, or a limit it exceeds). */
function configOfEntry(key: string, name: string, caps: DeviceCaps): MatmulConfig | string | undefined {
  if (name === MATMUL_HEURISTIC) return undefined;
  const cfg = MATMUL_CONFIG_BY_NAME.get(name);
  if (!cfg) return `tuning entry '${key}' names configuration '${name}', which is not a tiled matmul configuration (known: ${MATMUL_HEURISTIC}, ${[...MATMUL_CONFIG_BY_NAME.keys()].join(', ')})`;
  const why = misfitOf(cfg, caps);
  return why ? `tuning entry '${key}' names configuration '${name}', which does not fit the device: ${why}` : cfg;
}

/** Checks every entry of a table against the device: each names a known configuration that fits, else a clear error. */
export function checkMatmulTuning(tuning: MatmulTuning, caps: DeviceCaps): void {
  for (const [key, name] of Object.entries(tuning)) {
    const cfg = configOfEntry(key, name, caps);
    if (typeof cfg === 'string') throw new KernelError(`matmul ${cfg}`);
  }
}

/** The tuned configuration of this problem under `caps.matmulTuning`, or undefined (not tuned, or `default`); a bad entry is a KernelError. */
export function tunedMatmulConfig(p: MatmulProblem, caps: DeviceCaps): MatmulConfig | undefined {
  const key = matmulShapeKey(shapeOfProblem(p));
  const name = caps.matmulTuning?.[key];
  if (name === undefined) return undefined;
  const cfg = configOfEntry(key, name, caps);
  return typeof cfg === 'string' ? kernelError(p.spec, cfg) : cfg;
}

/**
 * `matmulMixedKernel` (matmulSubgroupMatrix.ts) where the mixed-precision policy applies, which loads on demand
 * (mixedKernels.ts: compile loads it under `precision: 'mixed'`); matmul.ts's fp32 kernels otherwise.
 */
function mixedOrFp32(spec: KernelSpec<MatmulOp>, caps: DeviceCaps): KernelPlan {
  if (!caps.mixedMatmul) return matmulKernel(spec, caps);
  const mixed = kernelGroup('mixed');
  if (mixed === undefined) return kernelError(spec, "the mixed-precision matmuls are not loaded yet: await loadKernels([...ops], { mixed: true }) first (compile does this under precision 'mixed')");
  return mixed.matmulMixedKernel(spec, caps);
}

/**
 * The matmul generator of the registry: a shape listed in `caps.matmulTuning` runs its tuned tiled configuration,
 * every other shape `matmulMixedKernel` (the shipped heuristic, or tensor cores under mixed precision). The table
 * holds fp32 measurements: a listed shape under the mixed policy is an error rather than a silent fp32 kernel.
 */
export function matmulTunedKernel(spec: KernelSpec<MatmulOp>, caps: DeviceCaps): KernelPlan {
  if (!caps.matmulTuning) return mixedOrFp32(spec, caps);
  const p = matmulProblemOf(spec);
  const cfg = tunedMatmulConfig(p, caps);
  if (!cfg) return mixedOrFp32(spec, caps);
  if (caps.mixedMatmul) return kernelError(spec, `tuning entry '${matmulShapeKey(shapeOfProblem(p))}' is an fp32 measurement; it cannot apply under precision 'mixed'`);
  return matmulPlanWith(spec, caps, cfg);
}
