// Where the host time of a synced step goes (bench instrumentation, `--phases`): timestamps around the
// device queue's `submit` split each step into call → submit (feed checks, uploads, encoding), the submit
// itself, submit → step() resolved (error scope, readbacks) and → sync resolved (the GPU's remaining work
// plus the latency of noticing it finished). Also the idle latencies that bound the last two phases.

import type { NeuraDevice } from '@neura/runtime-webgpu';

/** Median ms of each phase of a synced step, plus idle round trips on the same device. */
export interface HostPhaseFigures {
  callToSubmitMs: number;
  submitMs: number;
  submitToStepMs: number;
  stepToSyncMs: number;
  /** `onSubmittedWorkDone()` with nothing in flight. */
  idleSyncMs: number;
  /** One event-loop turn (`setImmediate` round trip); dawn.node polls the device once per turn. */
  loopTurnMs: number;
  /** GPU time of one step right after the loop (timestamps, one pass per dispatch), where the adapter has them. */
  gpuMs?: number;
  /** First start to last end of that step's dispatches. */
  gpuSpanMs?: number;
  samples: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Records the phases of steps run through `time` while installed on `device`'s queue. */
export class HostPhases {
  private readonly rows: number[][] = [];
  private submitStart = 0;
  private submitEnd = 0;
  private readonly queue: GPUQueue;
  private readonly original: GPUQueue['submit'];

  constructor(private readonly device: NeuraDevice) {
    this.queue = device.gpu.queue;
    this.original = this.queue.submit;
    const original = this.original.bind(this.queue);
    // an own property on the queue object shadows the prototype's submit until `uninstall`
    this.queue.submit = (buffers: Iterable<GPUCommandBuffer>) => {
      this.submitStart = performance.now();
      original(buffers);
      this.submitEnd = performance.now();
    };
  }

  /** One synced step: `step` then `sync`, timed by phase. */
  async time(step: () => Promise<unknown>, sync: () => Promise<unknown>): Promise<number> {
    const t0 = performance.now();
    await step();
    const t1 = performance.now();
    await sync();
    const t2 = performance.now();
    this.rows.push([this.submitStart - t0, this.submitEnd - this.submitStart, t1 - this.submitEnd, t2 - t1]);
    return t2 - t0;
  }

  /** Medians of the recorded steps and the idle round trips; removes the instrumentation. */
  async figures(): Promise<HostPhaseFigures> {
    delete (this.queue as unknown as Record<string, unknown>).submit; // the prototype's submit again
    if (this.queue.submit !== this.original) this.queue.submit = this.original;
    const idle: number[] = [];
    const turns: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await this.device.gpu.queue.onSubmittedWorkDone();
      idle.push(performance.now() - t);
      const u = performance.now();
      await new Promise((r) => setImmediate(r));
      turns.push(performance.now() - u);
    }
    const col = (k: number) => median(this.rows.map((r) => r[k]));
    return {
      callToSubmitMs: col(0),
      submitMs: col(1),
      submitToStepMs: col(2),
      stepToSyncMs: col(3),
      idleSyncMs: median(idle),
      loopTurnMs: median(turns),
      samples: this.rows.length,
    };
  }
}
