// Timing statistics for benchmarks: medians and spread over repeated samples. Benchmarks only — tests never
// time anything.

import type { FeedValue, Session } from '@neura/runtime-webgpu';

/** Summary of repeated timings, in milliseconds. */
export interface Timing {
  medianMs: number;
  p10Ms: number;
  p90Ms: number;
  samples: number;
}

/** Median and 10th/90th percentiles of samples in ms. */
export function summarize(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  const mid = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { medianMs: mid, p10Ms: at(0.1), p90Ms: at(0.9), samples: s.length };
}

/** Times `fn` `iters` times after `warmup` calls; each sample is one awaited call. */
export async function timeAsync(fn: () => Promise<unknown>, iters: number, warmup: number): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iters; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return summarize(samples);
}

/** Times synced steps of a compiled session (each awaited, the GPU synchronised), feeding the batches in turn. */
export function timeSessionSteps(session: Session, batches: readonly Readonly<Record<string, FeedValue>>[], iters: number, warmup: number): Promise<Timing> {
  let k = 0;
  return timeAsync(
    async () => {
      await session.step(batches[k++ % batches.length]);
      await session.sync();
    },
    iters,
    warmup,
  );
}
