// Matmul tuning tables measured with `tuneMatmul` and shipped with the runtime, one per adapter and driver: a
// table applies only on the adapter whose `adapterKey` (vendor, architecture, device, driver description, backend)
// is exactly the one it was measured on, and only when every entry fits the device's limits (a device created
// with lowered limits on that adapter gets none). Another driver version is another key: no shipped table, the
// heuristic. Precedence at compile: the user's table (and `autotune`'s cached choices) over the shipped table over
// the heuristic; `shippedMatmulTuning: false` turns it off. Fp32 measurements: not applied under precision 'mixed'.
// Each table lists only shapes where a tiling beat the heuristic by at least tuneMatmul's minGain; the figures are
// in the result file each entry names.

import { type DeviceCaps, type MatmulTuning, MATMUL_CONFIG_BY_NAME, MATMUL_HEURISTIC, misfitOf } from '@neura/wgsl-kernels';
import type { NeuraDevice } from './device.js';
import type { Precision } from './precision.js';
import { adapterKey } from './matmulTuning.js';

/** A measured table and the adapter it belongs to. */
export interface ShippedMatmulTuning {
  /** `adapterKey` of the adapter (and driver) it was measured on. */
  readonly adapter: string;
  /** Where the measurement is recorded (a file under apps/bench/results/). */
  readonly source: string;
  /** The measured matmul choices. */
  readonly tuning: MatmulTuning;
}

/** The shipped tables. */
export const SHIPPED_MATMUL_TUNINGS: readonly ShippedMatmulTuning[] = [
  {
    // GPT 6×384 step's input-gradient shapes (A·Bᵀ) and logits: the k-unrolled tilings, 1.08–1.25× per shape (GPU
    // timestamps), whole step 49.40 → 48.07 ms synced. Weight gradients (K = 16384): split-K heuristic kept. The
    // forward A·B shapes were tuned before MATMUL_LARGE (k-contiguous A tiles) became their default, which beats the
    // tuned `+u` tilings there (matmul-variants-h200-2026-12-04.md): those entries are left out, not to undo it.
    adapter: 'nvidia||nvidia-h200|NVIDIA: 580.159.04 580.159.4.0|vulkan',
    source: 'apps/bench/results/matmul-tuning-h200-2026-12-04.md',
    tuning: {
      '16384x65x384:NN:b1': '128x64x16/8x8+u',
      '16384x384x65:NT:b1': '128x64x8/8x8',
      '16384x1536x384:NT:b1': '128x128x16/8x8+u',
      '16384x384x1536:NT:b1': '128x64x16/8x8+u',
      '16384x384x384:NT:b1': '128x64x16/8x8+u',
      '16384x384x1152:NT:b1': '128x64x16/8x8+u',
    },
  },
  {
    // Mesa llvmpipe (the CI and developer machines' software adapter): the GPT 2×128 step's shapes and 256³; the
    // heuristic's small GPU-shaped tiles (32x32, many workgroups) lose 1.5–6× to the large tiles on a CPU (wall
    // clock on a loaded 2-core machine: among the large tiles the order is noise, against the heuristic it is not).
    adapter: '||llvmpipe-llvm-15-0-6-256-bits-|OpenGL version OpenGL ES 3.2 Mesa 22.3.6|opengles',
    source: 'apps/bench/results/matmul-tuning-software-2026-12-04.md',
    tuning: {
      '1024x384x128:NN:b1': '128x64x8/8x8+u',
      '1024x128x128:NN:b1': '128x64x16/8x8',
      '1024x512x128:NN:b1': '128x128x16/8x8+u',
      '1024x128x512:NN:b1': '128x128x16/8x8',
      '1024x65x128:NN:b1': '64x128x16/8x8+u',
      '1024x128x65:NT:b1': '128x128x8/8x8+u+db',
      '1024x512x128:NT:b1': '128x64x8/8x8+u',
      '1024x128x512:NT:b1': '128x64x16/8x8',
      '1024x128x128:NT:b1': '128x64x16/8x8+u',
      '1024x128x384:NT:b1': '64x128x16/8x8+u+db',
      '128x384x1024:TN:b1': '64x128x16/8x8',
      '128x128x1024:TN:b1': '128x64x8/8x8',
      '128x512x1024:TN:b1': '128x64x16/8x8+u',
      '512x128x1024:TN:b1': '128x128x16/8x8+u',
      '128x65x1024:TN:b1': '128x128x16/8x8+u+db',
      '256x256x256:NN:b1': '128x128x8/8x8',
    },
  },
  {
    // SwiftShader in Chromium (headless, web/tuningCheck.mjs tune): the same shapes, 1.5–5.1× over the heuristic.
    // Browsers hide the driver: the key is vendor and architecture only.
    adapter: 'google|swiftshader|||browser',
    source: 'apps/bench/results/matmul-tuning-software-2026-12-04.md',
    tuning: {
      '1024x384x128:NN:b1': '128x128x16/8x8+u',
      '1024x128x128:NN:b1': '64x128x16/8x8',
      '1024x512x128:NN:b1': '128x128x8/8x8+u',
      '1024x128x512:NN:b1': '64x64x16/8x4+u+db',
      '1024x65x128:NN:b1': '128x64x8/8x8+u+db',
      '1024x128x65:NT:b1': '64x128x16/8x8+u',
      '1024x512x128:NT:b1': '128x128x16/8x8',
      '1024x128x512:NT:b1': '128x128x16/8x8+u+db',
      '1024x128x128:NT:b1': '64x128x16/8x8+u',
      '1024x128x384:NT:b1': '128x64x8/8x8+u',
      '128x384x1024:TN:b1': '128x128x8/8x8+u',
      '128x128x1024:TN:b1': '64x128x16/8x8',
      '128x512x1024:TN:b1': '64x128x16/8x8+u',
      '512x128x1024:TN:b1': '64x128x16/8x8',
      '128x65x1024:TN:b1': '128x64x16/8x8',
      '256x256x256:NN:b1': '128x128x8/8x8+u+db',
    },
  },
];

/** The shipped table that fits `caps` on adapter `key`, or undefined; `tables` defaults to SHIPPED_MATMUL_TUNINGS. */
export function shippedTuningFor(key: string, caps: DeviceCaps, tables: readonly ShippedMatmulTuning[] = SHIPPED_MATMUL_TUNINGS): ShippedMatmulTuning | undefined {
  const t = tables.find((s) => s.adapter === key);
  if (!t) return undefined;
  for (const name of Object.values(t.tuning)) {
    if (name === MATMUL_HEURISTIC) continue;
    const cfg = MATMUL_CONFIG_BY_NAME.get(name);
    if (!cfg) throw new Error(`shipped matmul tuning of adapter '${key}' names configuration '${name}', which is not a tiled matmul configuration`);
    if (misfitOf(cfg, caps)) return undefined;
  }
  return t;
}

/** The shipped table of this device's adapter and driver, when one fits its limits. */
export const shippedMatmulTuning = (device: NeuraDevice): ShippedMatmulTuning | undefined => shippedTuningFor(adapterKey(device), device.caps);

/** The table a compile uses: the user's entries over the shipped table of the device's adapter (fp32, unless turned off). */
export function matmulTuningOf(device: NeuraDevice, opts: { readonly matmulTuning?: MatmulTuning; readonly shippedMatmulTuning?: boolean; readonly precision?: Precision }): MatmulTuning | undefined {
  const fp32 = (opts.precision ?? 'fp32') === 'fp32';
  if (opts.shippedMatmulTuning === true && !fp32)
    throw new RangeError(`compile: shippedMatmulTuning: true asks for the shipped matmul table, measured on fp32 kernels, which does not apply under precision: '${opts.precision}'; leave it unset or set it to false`);
  const shipped = opts.shippedMatmulTuning !== false && fp32 ? shippedMatmulTuning(device) : undefined;
  return shipped ? { ...shipped.tuning, ...opts.matmulTuning } : opts.matmulTuning;
}
