// A seeded random generator whose whole state is one u32 (mulberry32, the same stream as ir's `mulberry32`),
// so it can be saved in a checkpoint and restored exactly: data shuffling, sampling and dropout offsets
// drawn from it continue bit-identically after a resume. Must not read any global randomness.

/** A deterministic, serialisable PRNG. */
export class Rng {
  private s: number;

  constructor(seed = 0) {
    this.s = seed >>> 0;
  }

  /** The generator's state (a u32); `new Rng().setState(x)` resumes the stream exactly. */
  get state(): number {
    return this.s;
  }

  /** Restores a state returned by `state`. */
  setState(state: number): this {
    if (!Number.isInteger(state) || state < 0 || state > 0xffffffff) throw new RangeError(`Rng: state must be a u32, got ${state}`);
    this.s = state;
    return this;
  }

  /** A uniform float in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Shuffles `a` in place (Fisher–Yates) and returns it. */
  shuffle<T extends { length: number; [i: number]: number }>(a: T): T {
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    return a;
  }
}
