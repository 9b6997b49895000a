// The memory plan: liveness intervals over the step's schedule → GPU buffers, shared between transient
// tensors whose intervals do not overlap (best-fit on a free list, growing a free buffer when none fits). An
// arena (a multi-tensor kernel's operand role) lays its tensors out in one buffer, each at an offset aligned
// for binding, and is placed as one tensor living while any of them does.
// Pure: no GPUDevice here. Invariants: persistent tensors (params, state, inputs, consts) get a buffer each
// (or their arena's); two tensors that share a buffer never have overlapping intervals [start, end] (inclusive:
// a dispatch may not bind one buffer both as its input and as its output) unless they sit side by side in an arena.

/** One tensor to place: its size and the schedule positions where it is written first and read last. */
export interface TensorLifetime {
  /** Unique name of the tensor (the key of `bufferOf`). */
  readonly key: string;
  /** Size in bytes. */
  readonly bytes: number;
  /** Schedule position of the dispatch that writes it (ignored for persistent tensors). */
  readonly start: number;
  /** Last schedule position that reads it (inclusive); `start` when nothing reads it. */
  readonly end: number;
  /** Lives across steps: never shared. */
  readonly persistent: boolean;
}

/** One GPU buffer of the plan and the tensors it holds. */
export interface PlannedBuffer {
  /** Position of the buffer in `MemoryPlan.buffers`. */
  readonly index: number;
  /** Size in bytes (the largest tensor or arena it holds). */
  readonly bytes: number;
  /** Holds persistent tensors (params, state), never shared with transients. */
  readonly persistent: boolean;
  /** Keys of the tensors placed in it, in placement order. */
  readonly tensors: readonly string[];
}

/** Numbers of a plan, for reports and `Session.stats`. */
export interface MemoryReport {
  /** Sum of all buffer sizes. */
  readonly bytesAllocated: number;
  /** Sum of all tensor sizes (what one buffer per tensor would allocate). */
  readonly bytesIfUnshared: number;
  /** Number of GPU buffers created. */
  readonly buffers: number;
  /** Number of tensors placed. */
  readonly tensors: number;
  /** Bytes of buffers holding persistent tensors. */
  readonly persistentBytes: number;
  /** Bytes of buffers holding transient (per-step) tensors. */
  readonly transientBytes: number;
  /** Tensors placed in a buffer that an earlier tensor already used. */
  readonly reused: number;
  /** The most bytes live at once (persistent buffers plus the transient tensors alive at one position): what any packing needs at least. */
  readonly peakLiveBytes: number;
}

/** Tensors laid out side by side in one buffer (all persistent or all transient), in this order. */
export interface Arena {
  /** Unique name of the arena (its key in `MemoryPlan.arenas`). */
  readonly key: string;
  /** Keys of its member tensors, in layout order. */
  readonly tensors: readonly string[];
}

/** Where each tensor lives, the buffers to create, and the report. */
export interface MemoryPlan {
  /** Index into `buffers` of each tensor's buffer, by tensor key. */
  readonly bufferOf: ReadonlyMap<string, number>;
  /** Byte offset of a tensor in its buffer (arena members; 0 for every other tensor and absent keys). */
  readonly offsetOf: ReadonlyMap<string, number>;
  /** Each arena's buffer and byte size (its members from its offset 0). */
  readonly arenas: ReadonlyMap<string, { readonly buffer: number; readonly bytes: number }>;
  /** The buffers to create, indexed as in `bufferOf`. */
  readonly buffers: readonly PlannedBuffer[];
  /** Totals of the plan (bytes allocated, reuse, peak). */
  readonly report: MemoryReport;
}

/** Buffer sizes are rounded up to this many bytes (WebGPU needs multiples of 4; 16 keeps tiny tensors legal). */
export const BUFFER_ALIGN = 16;

/** Alignment of a tensor's start in an arena: WebGPU's largest `minStorageBufferOffsetAlignment`. */
export const ARENA_ALIGN = 256;

/** Bytes a tensor of `bytes` occupies in a buffer. */
export function alignedBytes(bytes: number): number {
  return Math.max(BUFFER_ALIGN, Math.ceil(bytes / BUFFER_ALIGN) * BUFFER_ALIGN);
}

/** Bytes a tensor of `bytes` takes in an arena: the next member starts ARENA_ALIGN-aligned. */
export function arenaSlotBytes(bytes: number): number {
  return Math.ceil(bytes / ARENA_ALIGN) * ARENA_ALIGN;
}

/** Places tensors into buffers: one per persistent tensor, transient ones shared by liveness. */
export function planMemory(tensors: readonly TensorLifetime[], arenas: readonly Arena[] = []): MemoryPlan {
  const seen = new Map<string, TensorLifetime>();
  for (const t of tensors) {
    if (seen.has(t.key)) throw new Error(`planMemory: tensor '${t.key}' appears twice`);
    seen.set(t.key, t);
    if (!t.persistent && t.end < t.start) throw new Error(`planMemory: tensor '${t.key}' ends (${t.end}) before it starts (${t.start})`);
  }
  // each arena stands for its members as one tensor; the members' offsets are fixed here
  const offsetOf = new Map<string, number>();
  const memberOf = new Map<string, string>();
  const units: TensorLifetime[] = [];
  for (const a of arenas) {
    const members = a.tensors.map((k) => seen.get(k) ?? fail(`planMemory: arena '${a.key}' names '${k}', which is not a tensor`));
    if (members.length === 0 || members.some((m) => m.persistent !== members[0].persistent)) fail(`planMemory: arena '${a.key}' mixes persistent and transient tensors (or is empty)`);
    let bytes = 0;
    for (const m of members) {
      if (memberOf.has(m.key)) fail(`planMemory: tensor '${m.key}' is in arenas '${memberOf.get(m.key)}' and '${a.key}'`);
      memberOf.set(m.key, a.key);
      offsetOf.set(m.key, bytes);
      bytes += arenaSlotBytes(m.bytes);
    }
    const start = Math.min(...members.map((m) => m.start));
    units.push({ key: a.key, bytes, start, end: Math.max(start, ...members.map((m) => m.end)), persistent: members[0].persistent });
  }
  const placed = [...tensors.filter((t) => !memberOf.has(t.key)), ...units];
  const sizes: number[] = [];
  const persistentOf: boolean[] = [];
  const members: string[][] = [];
  const bufferOf = new Map<string, number>();
  let reused = 0;
  const newBuffer = (bytes: number, persistent: boolean): number => {
    sizes.push(bytes);
    persistentOf.push(persistent);
    members.push([]);
    return sizes.length - 1;
  };
  const place = (t: TensorLifetime, b: number) => {
    bufferOf.set(t.key, b);
    members[b].push(t.key);
  };

  for (const t of placed) if (t.persistent) place(t, newBuffer(alignedBytes(t.bytes), true));

  // Sweep transient tensors by start; a buffer returns to the free list once its tensor's end is passed.
  const transient = placed.filter((t) => !t.persistent).sort((a, b) => a.start - b.start || b.bytes - a.bytes);
  const busy: { buffer: number; end: number }[] = [];
  const free: number[] = [];
  for (const t of transient) {
    for (let i = busy.length - 1; i >= 0; i--)
      if (busy[i].end < t.start) {
        free.push(busy[i].buffer);
        busy.splice(i, 1);
      }
    const need = alignedBytes(t.bytes);
    // best fit: the smallest free buffer that holds it; else grow the largest free one; else a new buffer
    let pick = -1;
    for (let i = 0; i < free.length; i++) if (sizes[free[i]] >= need && (pick < 0 || sizes[free[i]] < sizes[free[pick]])) pick = i;
    if (pick < 0) for (let i = 0; i < free.length; i++) if (pick < 0 || sizes[free[i]] > sizes[free[pick]]) pick = i;
    let b: number;
    if (pick >= 0) {
      b = free[pick];
      free.splice(pick, 1);
      sizes[b] = Math.max(sizes[b], need);
      reused++;
    } else b = newBuffer(need, false);
    place(t, b);
    busy.push({ buffer: b, end: t.end });
  }

  const arenaOf = new Map(units.map((u) => [u.key, { buffer: bufferOf.get(u.key) as number, bytes: u.bytes }]));
  for (const a of arenas) {
    const b = arenaOf.get(a.key)?.buffer as number;
    members[b] = members[b].flatMap((k) => (k === a.key ? [...a.tensors] : [k]));
    for (const k of a.tensors) bufferOf.set(k, b);
  }
  const buffers: PlannedBuffer[] = sizes.map((bytes, index) => ({ index, bytes, persistent: persistentOf[index], tensors: members[index] }));
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    bufferOf,
    offsetOf,
    arenas: arenaOf,
    buffers,
    report: {
      bytesAllocated: sum(sizes),
      bytesIfUnshared: sum(tensors.map((t) => alignedBytes(t.bytes))),
      buffers: sizes.length,
      tensors: tensors.length,
      persistentBytes: sum(buffers.filter((b) => b.persistent).map((b) => b.bytes)),
      transientBytes: sum(buffers.filter((b) => !b.persistent).map((b) => b.bytes)),
      reused,
      peakLiveBytes: sum(buffers.filter((b) => b.persistent).map((b) => b.bytes)) + peakLive(transient),
    },
  };
}

/** The most bytes of `tensors` alive at one schedule position (intervals inclusive). */
function peakLive(tensors: readonly TensorLifetime[]): number {
  const events: [number, number][] = [];
  for (const t of tensors) events.push([t.start, alignedBytes(t.bytes)], [t.end + 1, -alignedBytes(t.bytes)]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let live = 0;
  let peak = 0;
  for (const [, d] of events) {
    live += d;
    peak = Math.max(peak, live);
  }
  return peak;
}

function fail(message: string): never {
  throw new Error(message);
}
