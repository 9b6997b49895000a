// A compiled training/inference step on a device: `step(feeds)` checks the feeds on the host, writes the
// inputs and replays every dispatch in ONE command encoder, ONE compute pass and ONE submit; results are read
// back only when asked, through pre-allocated readback rings. Must not create buffers, pipelines or bind
// groups per step. Invariants: calls run in the order they were made (an internal queue); a rejected feed
// leaves the device untouched; device loss and validation errors surface as typed errors.

import type { TensorValue } from '@neura/ir';
import type { CompiledStep, NamedTensor, SessionStats } from './compiledStep.js';
import { GpuValidationError, InputError } from './errors.js';
import { checkLabels, type FeedValue, fmtType, toDeviceData } from './feeds.js';
import { DispatchTimer, checkProfilable, profileRequestFromEnv, StepProfile, writeProfileFiles } from './profiler.js';
import { ReadbackRing } from './readbackRing.js';

/** Options of one step. */
export interface StepOptions {
  /** Outputs to read back and return once this step's GPU work is done. */
  readonly read?: readonly string[];
  /** Outputs to copy out in this step's submission without waiting: `StepResult.fetched` resolves later. */
  readonly fetch?: readonly string[];
}

/** What `step` returns. */
export interface StepResult {
  /** 0-based index of this step in the session. */
  readonly step: number;
  /** Outputs named in `StepOptions.read`. */
  readonly outputs: Record<string, TensorValue>;
  /** Outputs named in `StepOptions.fetch`, once the GPU has produced them (undefined if none asked). */
  readonly fetched?: Promise<Record<string, TensorValue>>;
}

/** A compiled step bound to buffers on one device; create it with `compile(graph, device)`. */
export class Session {
  private readonly c: CompiledStep;
  private readonly rings = new Map<NamedTensor, ReadbackRing>();
  private tail: Promise<unknown> = Promise.resolve();
  private steps = 0;
  private disposed = false;
  /** NEURA_PROFILE: which step to profile and where to write its trace. */
  private readonly envProfile = profileRequestFromEnv();

  /** @internal Use `compile`. */
  constructor(compiled: CompiledStep) {
    this.c = compiled;
    for (const t of compiled.outputs.values()) this.ringFor(t);
  }

  /** Dispatch, kernel, pipeline, memory and copy counts of one step. */
  get stats(): SessionStats {
    return this.c.stats;
  }

  /** Names of the graph's outputs. */
  get outputNames(): string[] {
    return [...this.c.outputs.keys()];
  }

  /** Names of the params and state tensors. */
  get stateNames(): string[] {
    return [...this.c.state.keys()];
  }

  /** Runs one step: checks and writes `feeds`, one pass of all dispatches, one submit. */
  step(feeds: Readonly<Record<string, FeedValue>>, opts: StepOptions = {}): Promise<StepResult> {
    const env = this.envProfile;
    if (env && this.steps === env.step) {
      // NEURA_PROFILE: this step runs in profile mode and writes its trace (and table) once done
      return this.serial(async () => {
        const timer = new DispatchTimer(this.c.device, this.c.dispatches.length, this.c.label);
        let r: StepResult;
        try {
          r = await this.runStep(feeds, opts, timer);
        } catch (e) {
          timer.destroy();
          throw e;
        }
        await writeProfileFiles(new StepProfile(await timer.read(), this.c.label), env.path);
        return r;
      });
    }
    return this.serial(() => this.runStep(feeds, opts));
  }

  /**
   * Runs one step (updates included, exactly as `step`) with GPU timestamps per dispatch, one compute pass each;
   * returns its profile (per-kernel table, Chrome trace). Needs the `timestamp-query` feature (ProfilerError).
   */
  profile(feeds: Readonly<Record<string, FeedValue>>): Promise<StepProfile> {
    return this.serial(async () => {
      checkProfilable(this.c.device);
      const timer = new DispatchTimer(this.c.device, this.c.dispatches.length, this.c.label);
      try {
        await this.runStep(feeds, {}, timer);
      } catch (e) {
        timer.destroy();
        throw e;
      }
      return new StepProfile(await timer.read(), this.c.label);
    });
  }

  /** Reads an output, param or state tensor by name (after every step queued before this call). */
  read(name: string): Promise<TensorValue> {
    return this.serial(async () => (await this.readMany([name]))[name]);
  }

  /** Reads every param and state tensor, in one submission. */
  readState(): Promise<Record<string, TensorValue>> {
    return this.serial(() => this.readMany([...this.c.state.keys()]));
  }

  /** Overwrites a param or state tensor (after every step queued before this call). */
  writeState(name: string, value: FeedValue): Promise<void> {
    return this.serial(async () => {
      const t = this.c.state.get(name);
      if (!t) throw new InputError(name, `writeState: '${name}' is not a param or state; known: ${[...this.c.state.keys()].join(', ') || 'none'}`);
      const data = toDeviceData(name, t.node, value);
      this.c.device.gpu.queue.writeBuffer(t.buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    });
  }

  /** Waits until the GPU has finished all submitted work; throws a pending device error if there is one. */
  flush(): Promise<void> {
    return this.serial(async () => {
      await this.c.device.gpu.queue.onSubmittedWorkDone();
      this.c.device.check();
    });
  }

  /** Same as `flush()`. */
  sync(): Promise<void> {
    return this.flush();
  }

  /** Frees every buffer of the session (the device stays alive); later calls throw. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const r of this.rings.values()) r.destroy();
    for (const b of this.c.buffers) b.destroy();
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(() => {
      if (this.disposed) throw new Error(`session '${this.c.label}' is disposed`);
      this.c.device.check();
      return fn();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  private ringFor(t: NamedTensor): ReadbackRing {
    let r = this.rings.get(t);
    if (!r) {
      r = new ReadbackRing(this.c.device.gpu, `${this.c.label}.${t.name}`, t.bytes, t.node.shape, t.node.dtype, this.c.readbackSlots);
      this.rings.set(t, r);
    }
    return r;
  }

  private readable(name: string, what: string): NamedTensor {
    const t = this.c.outputs.get(name) ?? this.c.state.get(name);
    if (!t)
      throw new InputError(
        name,
        `${what}: '${name}' is not an output, param or state; outputs: ${[...this.c.outputs.keys()].join(', ') || 'none'}; state: ${[...this.c.state.keys()].join(', ') || 'none'}`,
      );
    return t;
  }

  /** Checks every feed before anything is written; returns the arrays to upload, in input order. */
  private checkFeeds(feeds: Readonly<Record<string, FeedValue>>): (Float32Array | Int32Array)[] {
    const expected = () => this.c.inputs.map((i) => `${i.name} ${fmtType(i.node)}`).join(', ') || 'none';
    for (const name of Object.keys(feeds))
      if (!this.c.deadInputs.has(name) && !this.c.inputs.some((i) => i.name === name))
        throw new InputError(name, `unknown input '${name}'; expected inputs: ${expected()}`);
    return this.c.inputs.map((slot) => {
      const v = feeds[slot.name];
      if (v === undefined) throw new InputError(slot.name, `missing input '${slot.name}' (${fmtType(slot.node)}); expected inputs: ${expected()}`);
      const data = toDeviceData(`input ${slot.name}`, slot.node, v);
      for (const chk of slot.labelChecks) checkLabels(slot.name, chk.op, data as Int32Array, chk.classes);
      return data;
    });
  }

  private async runStep(feeds: Readonly<Record<string, FeedValue>>, opts: StepOptions, timer?: DispatchTimer): Promise<StepResult> {
    const { device, inputs, dispatches, preCopies, postCopies, label } = this.c;
    const gpu = device.gpu;
    const data = this.checkFeeds(feeds);
    const readNames = [...(opts.read ?? [])];
    const fetchNames = [...(opts.fetch ?? [])];
    for (const n of [...readNames, ...fetchNames])
      if (!this.c.outputs.has(n)) throw new InputError(n, `step: '${n}' is not an output; outputs: ${[...this.c.outputs.keys()].join(', ') || 'none'}`);
    // acquire readback slots before writing anything, so nothing below awaits until the submit
    const slots = await Promise.all([...readNames, ...fetchNames].map((n) => this.ringFor(this.c.outputs.get(n) as NamedTensor).acquire()));

    const index = this.steps++;
    gpu.pushErrorScope('validation');
    inputs.forEach((slot, i) => {
      const d = data[i];
      gpu.queue.writeBuffer(slot.buffer, 0, d.buffer, d.byteOffset, d.byteLength);
    });
    const enc = gpu.createCommandEncoder({ label: `${label}.step` });
    for (const c of preCopies) enc.copyBufferToBuffer(c.src, 0, c.dst, 0, c.bytes);
    if (timer) timer.encode(enc, dispatches, label);
    else {
      const pass = enc.beginComputePass({ label: `${label}.pass` });
      for (const d of dispatches) {
        pass.setPipeline(d.pipeline);
        pass.setBindGroup(0, d.bindGroup);
        pass.dispatchWorkgroups(d.grid[0], d.grid[1], d.grid[2]);
      }
      pass.end();
    }
    // readback copies come before the state copies: an output that is a state's old value stays old
    const names = [...readNames, ...fetchNames];
    names.forEach((n, k) => {
      const t = this.c.outputs.get(n) as NamedTensor;
      enc.copyBufferToBuffer(t.buffer, 0, slots[k].buffer, 0, Math.ceil(t.bytes / 4) * 4);
    });
    for (const c of postCopies) enc.copyBufferToBuffer(c.src, 0, c.dst, 0, c.bytes);
    // Measured on llvmpipe/OpenGL ES (Dawn GL backend): submit itself runs the work and blocks (~19 ms for a
    // 64x256-128-10 MLP step); popErrorScope then resolves in ~0.25 ms without waiting for the queue, so the
    // step can name its own validation errors at little cost.
    gpu.queue.submit([enc.finish()]);
    const err = await gpu.popErrorScope();
    if (err) throw new GpuValidationError(`step ${index}`, err.message);

    const mapped = names.map((n, k) => this.ringFor(this.c.outputs.get(n) as NamedTensor).arm(slots[k].index));
    const collect = async (from: number, to: number) => {
      const out: Record<string, TensorValue> = {};
      for (let k = from; k < to; k++) out[names[k]] = await mapped[k];
      return out;
    };
    const fetched = fetchNames.length ? collect(readNames.length, names.length) : undefined;
    fetched?.catch(() => undefined); // a caller that never awaits it must not see an unhandled rejection
    const outputs = readNames.length ? await collect(0, readNames.length) : {};
    return { step: index, outputs, ...(fetched ? { fetched } : {}) };
  }

  private async readMany(names: readonly string[]): Promise<Record<string, TensorValue>> {
    const gpu = this.c.device.gpu;
    const ts = names.map((n) => this.readable(n, 'read'));
    const slots = await Promise.all(ts.map((t) => this.ringFor(t).acquire()));
    gpu.pushErrorScope('validation');
    const enc = gpu.createCommandEncoder({ label: `${this.c.label}.read` });
    ts.forEach((t, k) => {
      enc.copyBufferToBuffer(t.buffer, 0, slots[k].buffer, 0, Math.ceil(t.bytes / 4) * 4);
    });
    gpu.queue.submit([enc.finish()]);
    const err = await gpu.popErrorScope();
    if (err) throw new GpuValidationError(`read ${names.join(', ')}`, err.message);
    const out: Record<string, TensorValue> = {};
    const values = await Promise.all(ts.map((t, k) => this.ringFor(t).arm(slots[k].index)));
    ts.forEach((t, k) => {
      out[t.name] = values[k];
    });
    return out;
  }
}
