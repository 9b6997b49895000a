// The precision policy of a compiled step. `fp32` (default): every kernel computes in f32, the correctness
// reference. `mixed`: matmuls round their operands to f16 as they stage tiles and accumulate in f32 on subgroup
// matrices (tensor cores); f16 tensors (nn's autocast pass stores activations as f16) are read directly; master
// weights and optimizer state stay f32. Mixed precision needs
// Dawn's experimental `chromium-experimental-subgroup-matrix` with an f16 x f16 -> f32 configuration, `shader-f16`
// and `subgroups`, and 32-lane subgroups (the kernel's layout); a device without them gets a PrecisionError.

import type { DeviceCaps } from '@neura/wgsl-kernels';
import { type NeuraDevice, SUBGROUP_MATRIX_FEATURE } from './device.js';

/** `fp32` (default) or `mixed` (f16 matmul operands, f32 accumulation, f32 everything else). */
export type Precision = 'fp32' | 'mixed';

/** A precision policy the device cannot run, or an unknown one. */
export class PrecisionError extends Error {
  /** Always `'PrecisionError'`. */
  override readonly name = 'PrecisionError';
}

/** The caps kernels are planned with under `precision` (the device's own under fp32). */
export function capsFor(device: NeuraDevice, precision: Precision = 'fp32'): DeviceCaps {
  if (precision === 'fp32') return device.caps;
  if (precision !== 'mixed') throw new PrecisionError(`precision must be 'fp32' or 'mixed', got '${String(precision)}'`);
  const missing = [SUBGROUP_MATRIX_FEATURE, 'shader-f16', 'subgroups'].filter((f) => !device.features.has(f));
  const info = device.adapterInfo;
  const configs = info.subgroupMatrixConfigs.filter((c) => c.componentType === 'f16' && c.resultComponentType === 'f32');
  const why: string[] = [];
  if (missing.length) why.push(`lacks the feature(s) ${missing.map((f) => `'${f}'`).join(', ')}`);
  else if (configs.length === 0) why.push(`offers no f16 x f16 -> f32 subgroup-matrix configuration (configurations: ${JSON.stringify(info.subgroupMatrixConfigs)})`);
  if (info.subgroupSizes && (info.subgroupSizes[0] !== 32 || info.subgroupSizes[1] !== 32)) why.push(`has subgroups of ${info.subgroupSizes.join('–')} lanes (the kernel needs 32)`);
  if (why.length)
    throw new PrecisionError(
      `precision 'mixed' needs tensor-core matmuls ('${SUBGROUP_MATRIX_FEATURE}' with f16 operands and f32 results, plus 'shader-f16' and 'subgroups'); ` +
        `device ${device.name} (${[info.vendor, info.device || info.description].filter(Boolean).join(' ')}) ${why.join('; ')}. ` +
        "In Node, create the device with createDevice({ mixedPrecision: true }) (Dawn toggles allow_unsafe_apis and vulkan_enable_f16_on_nvidia); use precision 'fp32' elsewhere.",
    );
  // the largest shape (most work per matrix instruction) whose k divides the kernel's 32-deep slices
  const best = configs.filter((c) => 32 % c.k === 0).sort((a, b) => b.m * b.n * b.k - a.m * a.n * a.k)[0];
  if (!best) throw new PrecisionError(`precision 'mixed': device ${device.name} has no f16 subgroup-matrix configuration with k dividing 32 (${JSON.stringify(configs)})`);
  return { ...device.caps, mixedMatmul: { m: best.m, n: best.n, k: best.k } };
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
