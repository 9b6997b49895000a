// The precision policy of a compiled step. `fp32` (default): every kernel computes in f32, the correctness
// reference. `mixed` runs one of two ways, chosen here from what the device offers (`mixedPath`):
// - tensor cores: Dawn's experimental `chromium-experimental-subgroup-matrix` with an f16 x f16 -> f32 configuration,
//   `shader-f16`, `subgroups` and 32-lane subgroups (the kernel's layout): matmuls round their operands to f16 as they
//   stage tiles and accumulate in f32 on subgroup matrices (`caps.mixedMatmul`); f16 tensors are read directly;
// - portable (`shader-f16` only, as browsers offer today): f16 storage is the strategy (`caps.mixedF16Storage`):
//   nn's autocast stores activations and their gradients as f16 and the fp32 tiled kernels read them, accumulating
//   in f32. Master weights and optimizer state stay f32 on both. Without `shader-f16` mixed is a PrecisionError.

import type { DeviceCaps, SubgroupMatrixShape } from '@neura/wgsl-kernels';
import { type NeuraDevice, SUBGROUP_MATRIX_FEATURE } from './device.js';

/** `fp32` (default) or `mixed` (f16 matmul operands or f16 storage, f32 accumulation, f32 master weights). */
export type Precision = 'fp32' | 'mixed';

/** How `precision: 'mixed'` runs on a device: subgroup-matrix matmuls, or f16 storage with the fp32 kernels. */
export type MixedPath = 'tensor-cores' | 'portable';

/** A precision policy the device cannot run, or an unknown one. */
export class PrecisionError extends Error {
  /** Always `'PrecisionError'`. */
  override readonly name = 'PrecisionError';
}

/** `name (vendor device)` of a device, as errors name it. */
function describeDevice(device: NeuraDevice): string {
  const info = device.adapterInfo;
  return `${device.name} (${[info.vendor, info.device || info.description].filter(Boolean).join(' ')})`;
}

/** What `tensorCoreShortfall` finds: why a device has no tensor-core matmuls, or the matrix shape they use. */
export type TensorCoreShortfall =
  | {
      /** What the device lacks or offers instead, in words for an error message. */
      readonly why: string;
      /** Absent: no tensor cores. */
      readonly shape?: undefined;
    }
  | {
      /** Absent: the device has tensor cores. */
      readonly why?: undefined;
      /** The subgroup-matrix shape the kernel uses. */
      readonly shape: SubgroupMatrixShape;
    };

/**
 * Why the device has no tensor-core matmuls for `mixed` (undefined when it has them; then `shape` is the subgroup
 * matrix shape the kernel uses: the largest whose k divides its 32-deep slices).
 */
export function tensorCoreShortfall(device: NeuraDevice): TensorCoreShortfall {
  const missing = [SUBGROUP_MATRIX_FEATURE, 'shader-f16', 'subgroups'].filter((f) => !device.features.has(f));
  const info = device.adapterInfo;
  if (missing.length) return { why: `lacks the feature(s) ${missing.map((f) => `'${f}'`).join(', ')}` };
  const configs = info.subgroupMatrixConfigs.filter((c) => c.componentType === 'f16' && c.resultComponentType === 'f32');
  if (configs.length === 0) return { why: `offers no f16 x f16 -> f32 subgroup-matrix configuration (configurations: ${JSON.stringify(info.subgroupMatrixConfigs)})` };
  if (info.subgroupSizes && (info.subgroupSizes[0] !== 32 || info.subgroupSizes[1] !== 32)) return { why: `has subgroups of ${info.subgroupSizes.join('–')} lanes (the kernel needs 32)` };
  const best = configs.filter((c) => 32 % c.k === 0).sort((a, b) => b.m * b.n * b.k - a.m * a.n * a.k)[0];
  if (!best) return { why: `has no f16 subgroup-matrix configuration with k dividing 32 (${JSON.stringify(configs)})` };
  return { shape: { m: best.m, n: best.n, k: best.k } };
}

/** The caps kernels are planned with under `precision` (the device's own under fp32). */
export function capsFor(device: NeuraDevice, precision: Precision = 'fp32'): DeviceCaps {
  if (precision === 'fp32') return device.caps;
  if (precision !== 'mixed') throw new PrecisionError(`precision must be 'fp32' or 'mixed', got '${String(precision)}'`);
  if (!device.features.has('shader-f16'))
    throw new PrecisionError(
      `precision 'mixed' needs the 'shader-f16' feature (f16 storage; tensor-core matmuls also need '${SUBGROUP_MATRIX_FEATURE}' and 'subgroups'); ` +
        `device ${describeDevice(device)} lacks 'shader-f16'. ` +
        "In Node, create the device with createDevice({ mixedPrecision: true }) (Dawn toggles allow_unsafe_apis and vulkan_enable_f16_on_nvidia); use precision 'fp32' elsewhere.",
    );
  const { shape } = tensorCoreShortfall(device);
  // tensor cores where they are usable; otherwise the portable path: f16 storage read by the fp32 kernels
  return shape ? { ...device.caps, mixedMatmul: shape } : { ...device.caps, mixedF16Storage: true };
}

/** Which way `precision: 'mixed'` runs on the device (a PrecisionError where it cannot: no `shader-f16`). */
export function mixedPath(device: NeuraDevice): MixedPath {
  return capsFor(device, 'mixed').mixedMatmul ? 'tensor-cores' : 'portable';
}

/** Whether the device runs `precision` (what `capsFor` would refuse with a PrecisionError, as a boolean). */
export function supportsPrecision(device: NeuraDevice, precision: Precision): boolean {
  try {
    capsFor(device, precision);
    return true;
  } catch (e) {
    if (e instanceof PrecisionError) return false;
    throw e;
  }
}
