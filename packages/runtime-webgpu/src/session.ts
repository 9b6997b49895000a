// A compiled training/inference step on a device: `step(feeds)` checks the feeds on the host, writes the
// inputs and replays every dispatch in ONE compute pass and ONE submit; results are read back only when asked,
// through pre-allocated readback rings. Must not create buffers, pipelines or bind groups per step. The
// replay's command buffers are encoded ahead: right after a step is submitted, the next step's are encoded
// while the GPU runs (encoding ~128 dispatches costs a few hundred µs of host time that would otherwise sit
// between the feeds and the submit). Invariants: calls run in the order they were made (an internal queue);
// feeds are checked and taken when `step()` is called (the caller may reuse its arrays at once): written to
// the device at once when nothing is queued before the step, else copied; a rejected feed leaves the device
// untouched; no error scope stays open across an await (errors stay in the call that caused them); device
// loss and validation errors surface as typed errors.

import type { TensorValue } from '@neura/ir';
import type { CompiledStep, NamedTensor, SessionStats } from './compiledStep.js';
import { asDeviceLoss, GpuValidationError, InputError } from './errors.js';
import { checkFeedsObject, checkLabels, type DeviceData, type FeedValue, fmtType, toDeviceData } from './feeds.js';
import { DispatchTimer, checkProfilable, profileRequestFor, StepProfile, writeProfileFiles } from './profiler.js';
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
  /** Calls queued or running in `serial` (0: a new step may write its feeds to the device at once). */
  private queued = 0;
  /** The next step's replay, encoded ahead (undefined until the first step, and while a step consumes it). */
  private replay?: EncodedReplay;
  private steps = 0;
  private disposed = false;
  private freed?: Promise<void>;
  /** NEURA_PROFILE: which step to profile and where to write its trace (undefined where the adapter cannot time). */
  private readonly envProfile: ReturnType<typeof profileRequestFor>;

  /** @internal Use `compile`. */
  constructor(compiled: CompiledStep) {
    this.c = compiled;
    this.envProfile = profileRequestFor(compiled.device);
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

  /**
   * Runs one step: one pass of all dispatches, one submit. `feeds` are checked and copied now, when `step` is
   * called, so the caller may refill its arrays at once even though the step runs after the ones queued before it.
   */
  step(feeds: Readonly<Record<string, FeedValue>>, opts: StepOptions = {}): Promise<StepResult> {
    let prepared: PreparedStep;
    try {
      prepared = this.prepare(feeds, opts);
    } catch (e) {
      return Promise.reject(e);
    }
    const env = this.envProfile;
    if (env && this.steps === env.step) {
      // NEURA_PROFILE: this step runs in profile mode and writes its trace (and table) once done
      return this.serial(async () => {
        const timer = new DispatchTimer(this.c.device, this.c.dispatches.length, this.c.label);
        let r: StepResult;
        try {
          r = await this.runStep(prepared, timer);
        } catch (e) {
          timer.destroy();
          throw e;
        }
        await writeProfileFiles(new StepProfile(await timer.read(), this.c.label), env.path);
        return r;
      });
    }
    return this.serial(() => this.runStep(prepared));
  }

  /**
   * Runs one step (updates included, exactly as `step`) with GPU timestamps per dispatch, one compute pass each;
   * returns its profile (per-kernel table, Chrome trace). Needs the `timestamp-query` feature (ProfilerError).
   * `repeats` > 1 (benchmarks) encodes the step's dispatches that many times in the one submission.
   */
  profile(feeds: Readonly<Record<string, FeedValue>>, opts: { repeats?: number } = {}): Promise<StepProfile> {
    let prepared: PreparedStep;
    try {
      checkProfilable(this.c.device); // before `prepare`, which may write the feeds at once
      prepared = this.prepare(feeds, {});
    } catch (e) {
      return Promise.reject(e);
    }
    return this.serial(async () => {
      const timer = new DispatchTimer(this.c.device, this.c.dispatches.length, this.c.label, opts.repeats);
      try {
        await this.runStep(prepared, timer);
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

  /** Overwrites a param or state tensor (after every step queued before this call); checked and copied now. */
  writeState(name: string, value: FeedValue): Promise<void> {
    return this.writeStates({ [name]: value });
  }

  /**
   * Overwrites several params/state tensors at once (after every step queued before this call). Every value is
   * checked (name, shape, dtype, length) and copied before anything is written: a bad one writes nothing.
   */
  writeStates(values: Readonly<Record<string, FeedValue>>): Promise<void> {
    let writes: { t: NamedTensor; data: DeviceData }[];
    try {
      if (this.disposed) throw new Error(`session '${this.c.label}' is disposed`);
      writes = Object.entries(values).map(([name, value]) => {
        const t = this.c.state.get(name);
        if (!t) throw new InputError(name, `writeState: '${name}' is not a param or state; known: ${[...this.c.state.keys()].join(', ') || 'none'}`);
        return { t, data: snapshot(toDeviceData(name, t.node, value), value) };
      });
    } catch (e) {
      return Promise.reject(e);
    }
    return this.serial(async () => {
      const gpu = this.c.device.gpu;
      gpu.pushErrorScope('validation');
      for (const { t, data } of writes) gpu.queue.writeBuffer(t.buffer, t.offset, data.buffer, data.byteOffset, data.byteLength);
      const err = await gpu.popErrorScope();
      if (err) throw new GpuValidationError(`writeState ${writes.map((w) => w.t.name).join(', ')}`, err.message);
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

  /**
   * Frees every buffer of the session (the device stays alive). Calls made after it throw at once; calls queued
   * before it that have not started are refused; the one running finishes first, and so do pending readbacks —
   * destroying buffers under in-flight work would leave a stale device error for an unrelated caller (issue 9).
   * The promise resolves once everything is freed.
   */
  dispose(): Promise<void> {
    if (this.disposed) return this.freed ?? Promise.resolve();
    this.disposed = true;
    this.freed = this.tail.then(async () => {
      await Promise.all([...this.rings.values()].map((r) => r.settled()));
      for (const r of this.rings.values()) r.destroy();
      for (const b of this.c.buffers) b.destroy();
    });
    return this.freed;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    this.queued++;
    const run = this.tail.then(async () => {
      try {
        if (this.disposed) throw new Error(`session '${this.c.label}' is disposed`);
        this.c.device.check();
        return await fn();
      } catch (e) {
        throw await asDeviceLoss(e, this.c.device); // a device lost mid-call aborts its mappings: say so
      } finally {
        this.queued--; // before `run` settles, so a step called right after it sees an idle queue
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Encodes the step's fixed work as command buffers: the pre-copies and every dispatch in one compute pass
   * (`main`), and the state copies that follow the readback copies (`post`). Its error scope is popped at once;
   * the step that submits it reports an encoding error.
   */
  private encodeReplay(): EncodedReplay {
    const { device, dispatches, preCopies, postCopies, label } = this.c;
    const gpu = device.gpu;
    gpu.pushErrorScope('validation');
    const enc = gpu.createCommandEncoder({ label: `${label}.step` });
    for (const c of preCopies) enc.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.bytes);
    const pass = enc.beginComputePass({ label: `${label}.pass` });
    for (const d of dispatches) {
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.bindGroup);
      pass.dispatchWorkgroups(d.grid[0], d.grid[1], d.grid[2]);
    }
    pass.end();
    const main = enc.finish();
    let post: GPUCommandBuffer | undefined;
    if (postCopies.length) {
      const pe = gpu.createCommandEncoder({ label: `${label}.stateCopies` });
      for (const c of postCopies) pe.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.bytes);
      post = pe.finish();
    }
    const error = gpu.popErrorScope();
    error.catch(() => undefined); // a replay never submitted (dispose) must not leave an unhandled rejection
    return { main, post, error };
  }

  /** Writes checked feeds to the input buffers now, in an error scope popped at once. */
  private writeInputs(data: readonly DeviceData[]): Promise<GPUError | null> {
    const gpu = this.c.device.gpu;
    gpu.pushErrorScope('validation');
    this.c.inputs.forEach((slot, i) => {
      const d = data[i];
      gpu.queue.writeBuffer(slot.buffer, slot.offset, d.buffer, d.byteOffset, d.byteLength);
    });
    const error = gpu.popErrorScope();
    error.catch(() => undefined);
    return error;
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

  /** Names of outputs to copy out, each once, in first-mention order; throws on a name that is not an output. */
  private outputList(names: readonly string[]): string[] {
    for (const n of names)
      if (!this.c.outputs.has(n)) throw new InputError(n, `step: '${n}' is not an output; outputs: ${[...this.c.outputs.keys()].join(', ') || 'none'}`);
    return [...new Set(names)];
  }

  /** Checks every feed before anything is written; returns the arrays to upload (copies of the caller's), in input order. */
  private checkFeeds(feeds: Readonly<Record<string, FeedValue>>, copy = false): DeviceData[] {
    const expected = () => this.c.inputs.map((i) => `${i.name} ${fmtType(i.node)}`).join(', ') || 'none';
    checkFeedsObject(feeds, expected, (name) => this.c.inputs.some((i) => i.name === name));
    for (const name of Object.keys(feeds))
      if (!this.c.deadInputs.has(name) && !this.c.inputs.some((i) => i.name === name))
        throw new InputError(name, `unknown input '${name}'; expected inputs: ${expected()}`);
    return this.c.inputs.map((slot) => {
      const v = feeds[slot.name];
      if (v === undefined) throw new InputError(slot.name, `missing input '${slot.name}' (${fmtType(slot.node)}); expected inputs: ${expected()}`);
      const data = toDeviceData(`input ${slot.name}`, slot.node, v);
      for (const chk of slot.labelChecks) checkLabels(slot.name, chk, data);
      return copy ? snapshot(data, v) : data;
    });
  }

  /**
   * What `step` takes at call time: the checked feeds and the outputs to copy out, each once. With nothing
   * queued before it the feeds go to the device now (`writeBuffer` copies them: no host copy, and no earlier
   * step is left to read the input buffers); otherwise they are copied, to be written when the step runs.
   */
  private prepare(feeds: Readonly<Record<string, FeedValue>>, opts: StepOptions): PreparedStep {
    if (this.disposed) throw new Error(`session '${this.c.label}' is disposed`);
    const readNames = this.outputList(opts.read ?? []);
    const fetchNames = this.outputList(opts.fetch ?? []);
    if (this.queued === 0) return { written: this.writeInputs(this.checkFeeds(feeds)), readNames, fetchNames };
    return { data: this.checkFeeds(feeds, true), readNames, fetchNames };
  }

  private async runStep({ data, written, readNames, fetchNames }: PreparedStep, timer?: DispatchTimer): Promise<StepResult> {
    const { device, dispatches, label } = this.c;
    const gpu = device.gpu;
    // an output both read and fetched is copied once and serves both
    const names = [...new Set([...readNames, ...fetchNames])];
    // acquire readback slots before writing anything, so nothing below awaits until the submit
    const slots = names.length ? await Promise.all(names.map((n) => this.ringFor(this.c.outputs.get(n) as NamedTensor).acquire())) : [];

    const index = this.steps++;
    const writeError = written ?? this.writeInputs(data ?? []);
    const replay = this.replay ?? this.encodeReplay();
    this.replay = undefined;
    gpu.pushErrorScope('validation');
    const buffers: GPUCommandBuffer[] = [];
    if (timer) {
      // profile mode: one pass per dispatch with timestamps, encoded now; the replay stays for the next step
      this.replay = replay;
      const enc = gpu.createCommandEncoder({ label: `${label}.profile` });
      for (const c of this.c.preCopies) enc.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.bytes);
      timer.encode(enc, dispatches, label);
      buffers.push(enc.finish());
    } else buffers.push(replay.main);
    // readback copies come before the state copies: an output that is a state's old value stays old
    if (names.length) {
      const enc = gpu.createCommandEncoder({ label: `${label}.readback` });
      names.forEach((n, k) => {
        const t = this.c.outputs.get(n) as NamedTensor;
        enc.copyBufferToBuffer(t.buffer, t.offset, slots[k].buffer, 0, Math.ceil(t.bytes / 4) * 4);
      });
      buffers.push(enc.finish());
    }
    if (timer) {
      if (this.c.postCopies.length) {
        const enc = gpu.createCommandEncoder({ label: `${label}.stateCopies` });
        for (const c of this.c.postCopies) enc.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.bytes);
        buffers.push(enc.finish());
      }
    } else if (replay.post) buffers.push(replay.post);
    // Measured on llvmpipe/OpenGL ES (Dawn GL backend): submit itself runs the work and blocks (~19 ms for a
    // 64x256-128-10 MLP step); popErrorScope then resolves in ~0.25 ms without waiting for the queue, so the
    // step can name its own validation errors at little cost.
    gpu.queue.submit(buffers);
    const stepError = gpu.popErrorScope();
    // the next step's replay is encoded while the GPU runs this one
    if (!this.replay && !this.disposed) this.replay = this.encodeReplay();
    const [err, encodeErr, feedErr] = await Promise.all([stepError, timer ? null : replay.error, writeError]);
    const cause = feedErr ?? encodeErr ?? err;
    if (cause) throw new GpuValidationError(`step ${index}`, cause.message);

    const mapped = new Map(names.map((n, k) => [n, this.ringFor(this.c.outputs.get(n) as NamedTensor).arm(slots[k].index)]));
    const collect = async (which: readonly string[]) => {
      const out: Record<string, TensorValue> = {};
      try {
        for (const n of which) out[n] = await (mapped.get(n) as Promise<TensorValue>);
      } catch (e) {
        throw await asDeviceLoss(e, device);
      }
      return out;
    };
    const fetched = fetchNames.length ? collect(fetchNames) : undefined;
    fetched?.catch(() => undefined); // a caller that never awaits it must not see an unhandled rejection
    const outputs = readNames.length ? await collect(readNames) : {};
    return { step: index, outputs, ...(fetched ? { fetched } : {}) };
  }

  private async readMany(names: readonly string[]): Promise<Record<string, TensorValue>> {
    const gpu = this.c.device.gpu;
    const ts = [...new Set(names)].map((n) => this.readable(n, 'read'));
    gpu.pushErrorScope('validation');
    const rings = ts.map((t) => this.ringFor(t));
    const ringError = await gpu.popErrorScope();
    if (ringError) throw new GpuValidationError(`read ${names.join(', ')}`, ringError.message);
    const slots = await Promise.all(rings.map((r) => r.acquire()));
    gpu.pushErrorScope('validation');
    const enc = gpu.createCommandEncoder({ label: `${this.c.label}.read` });
    ts.forEach((t, k) => {
      enc.copyBufferToBuffer(t.buffer, t.offset, slots[k].buffer, 0, Math.ceil(t.bytes / 4) * 4);
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

/** A step's checked inputs, taken when `step` is called: already written (`written`) or copies to write (`data`). */
interface PreparedStep {
  readonly data?: readonly DeviceData[];
  /** The error scope of the feeds' writes, when they were written at call time. */
  readonly written?: Promise<GPUError | null>;
  readonly readNames: readonly string[];
  readonly fetchNames: readonly string[];
}

/** A step's fixed command buffers, encoded ahead of the step that submits them (each submitted once). */
interface EncodedReplay {
  readonly main: GPUCommandBuffer;
  readonly post?: GPUCommandBuffer;
  /** The error scope of the encoding. */
  readonly error: Promise<GPUError | null>;
}

/** `data` itself when it was made for the upload, else a copy: never keep a reference to the caller's array. */
function snapshot(data: DeviceData, given: FeedValue): DeviceData {
  return data === given || data === (given as TensorValue).data ? data.slice() : data;
}
