// Whether a compile stores activations and their gradients as f16 (the autocast pass, autocast.ts), from the
// precision, the device's mixed path (runtime's capsFor) and the user's `autocast` option. A decision only: the graph
// work loads on demand (optIn.ts). An option that cannot be honoured is a PrecisionError, never ignored.

import { type Precision, PrecisionError } from '@neura/runtime-webgpu';
import type { DeviceCaps } from '@neura/wgsl-kernels';

/**
 * Whether to autocast under `precision` on a device planned with `caps` (`capsFor(device, precision)`):
 * - fp32: never (`autocast: true` is an error: f16 storage is part of `mixed`);
 * - mixed on tensor cores (`caps.mixedMatmul`): unless `autocast: false` (f32 storage, f16 matmul operands rounded as
 *   they are staged), as PyTorch autocast does: measured faster and smaller (GPT 6x384, H100);
 * - mixed on the portable path (`caps.mixedF16Storage`): always (f16 storage is the whole strategy there), so
 *   `autocast: false` is an error rather than a silent fp32 step.
 */
export function autocastFor(caps: DeviceCaps, precision: Precision | undefined, autocast: boolean | undefined, who: string): boolean {
  if ((precision ?? 'fp32') !== 'mixed') {
    if (autocast === true) throw new PrecisionError(`${who}: autocast: true stores activations as f16, which is part of precision 'mixed'; set precision: 'mixed' too, or leave autocast unset`);
    return false;
  }
  if (caps.mixedMatmul) return autocast !== false;
  if (autocast === false)
    throw new PrecisionError(
      `${who}: autocast: false asks for precision 'mixed' with f32 storage, which needs tensor-core matmuls ('chromium-experimental-subgroup-matrix'); ` +
        "this device runs 'mixed' as f16 storage with the fp32 kernels (the portable path), so without autocast nothing would be f16: leave autocast unset, or use precision 'fp32'",
    );
  return true;
}
