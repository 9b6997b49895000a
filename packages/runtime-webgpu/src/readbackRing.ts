// A small ring of MAP_READ buffers for one tensor, so a step can copy a result out and map it later while the
// next steps already use the other slots. Must not allocate after construction. Invariant: a slot is handed
// out only when its previous mapping has finished (or it was never used); the caller submits the copy into
// the slot before calling `arm`.

import { type DType, fromF16Array, numel } from '@neura/ir';
import type { TensorValue } from '@neura/ir';

interface Slot {
  readonly buffer: GPUBuffer;
  /** Mapping in progress (or finished but not yet collected); undefined when free. */
  busy?: Promise<TensorValue>;
}

/** Readback slots for one tensor: `acquire` a free slot, encode a copy into it, submit, then `arm` it. */
export class ReadbackRing {
  private readonly slots: Slot[];
  private next = 0;

  constructor(
    device: GPUDevice,
    label: string,
    private readonly bytes: number,
    private readonly shape: readonly number[],
    private readonly dtype: DType,
    size = 2,
  ) {
    const alloc = Math.max(16, Math.ceil(bytes / 4) * 4);
    this.slots = Array.from({ length: size }, (_, i) =>
      ({ buffer: device.createBuffer({ label: `${label}.readback${i}`, size: alloc, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }) }),
    );
  }

  /** A free slot's buffer and its index; waits for the oldest mapping when every slot is in use. */
  async acquire(): Promise<{ buffer: GPUBuffer; index: number }> {
    const index = this.next;
    this.next = (this.next + 1) % this.slots.length;
    const slot = this.slots[index];
    if (slot.busy) await slot.busy.catch(() => undefined);
    slot.busy = undefined;
    return { buffer: slot.buffer, index };
  }

  /** Starts mapping slot `index` (after its copy was submitted); resolves to the tensor it holds. */
  arm(index: number): Promise<TensorValue> {
    const slot = this.slots[index];
    const p = slot.buffer.mapAsync(GPUMapMode.READ, 0, slot.buffer.size).then(() => {
      const raw = slot.buffer.getMappedRange(0, slot.buffer.size).slice(0, this.bytes);
      slot.buffer.unmap();
      // f16 tensors come back as their 16-bit encodings (a buffer rounded up to 4 bytes: read numel halves)
      const data = this.dtype === 'f16' ? fromF16Array(new Uint16Array(raw, 0, numel(this.shape))) : this.dtype === 'f32' ? new Float32Array(raw) : new Int32Array(raw);
      return { shape: [...this.shape], dtype: this.dtype, data } satisfies TensorValue;
    });
    slot.busy = p;
    return p;
  }

  /** Resolves when no mapping of this ring is in flight (whether it succeeded or not). */
  async settled(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.busy?.catch(() => undefined)));
  }

  /** Destroys the slots' buffers (a pending mapping then rejects). */
  destroy(): void {
    for (const s of this.slots) s.buffer.destroy();
  }
}
