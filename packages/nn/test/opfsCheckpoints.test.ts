// opfsCheckpoints on an in-memory stand-in for the Origin Private File System (Node has no OPFS; the demo's
// web:check runs the real one in Chromium): save / load / list / remove in both atomic modes, and a save that fails
// mid-write leaves the earlier checkpoint readable. The stand-in keeps OPFS's rules (close() commits a write,
// move() renames over an existing file, a missing entry is a NotFoundError); a failing write truncates the file it
// writes, the worst case (a crash inside close(), or an in-place writer), which only write-then-move survives.
import { encodeCheckpoint } from '@neura/nn';
import { OpfsCheckpointError, opfsCheckpoints } from '@neura/nn/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const notFound = (name: string) => new DOMException(`${name} not found`, 'NotFoundError');

class MemFile {
  constructor(
    readonly dir: MemDir,
    public name: string,
  ) {}
  readonly kind = 'file';
  data = new Uint8Array(0);
  /** A write fails after this many bytes (to simulate a crash mid-save); -1: never. */
  static failAfter = -1;
  async getFile() {
    const d = this.data.slice();
    return { arrayBuffer: async () => d.buffer, text: async () => new TextDecoder().decode(d) };
  }
  async createWritable() {
    let swap = new Uint8Array(0);
    return {
      write: async (chunk: Uint8Array | string) => {
        const b = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
        if (MemFile.failAfter >= 0) {
          this.data = b.slice(0, MemFile.failAfter); // the worst case: the file itself left truncated
          throw new DOMException('disk full', 'QuotaExceededError');
        }
        swap = b.slice();
      },
      close: async () => {
        this.data = swap;
      },
      abort: async () => {},
    };
  }
  async move(newName: string) {
    this.dir.entries.delete(this.name);
    this.name = newName;
    this.dir.entries.set(newName, this);
  }
}

class MemDir {
  readonly kind = 'directory';
  readonly entries = new Map<string, MemFile | MemDir>();
  async getDirectoryHandle(name: string, o: { create?: boolean } = {}) {
    let d = this.entries.get(name);
    if (!d && o.create) this.entries.set(name, (d = new MemDir()));
    if (!(d instanceof MemDir)) throw notFound(name);
    return d;
  }
  async getFileHandle(name: string, o: { create?: boolean } = {}) {
    let f = this.entries.get(name);
    if (!f && o.create) this.entries.set(name, (f = new MemFile(this, name)));
    if (!(f instanceof MemFile)) throw notFound(name);
    return f;
  }
  async removeEntry(name: string) {
    if (!this.entries.delete(name)) throw notFound(name);
  }
  async *[Symbol.asyncIterator]() {
    yield* [...this.entries];
  }
}

const ckpt = (step: number) => encodeCheckpoint({ w: { data: new Float32Array([step, step + 1]), shape: [2], dtype: 'f32' } }, { step });

describe.each(['move', 'index'] as const)("opfsCheckpoints, atomic: '%s'", (atomic) => {
  const g = globalThis as { FileSystemFileHandle?: unknown };
  beforeAll(() => {
    g.FileSystemFileHandle = MemFile; // OPFS's global, whose prototype has move() in Chromium and Firefox
  });
  afterAll(() => {
    delete g.FileSystemFileHandle;
  });
  const open = (root: MemDir) => opfsCheckpoints('ckpts', { root: root as unknown as FileSystemDirectoryHandle, atomic });

  it('saves, lists, loads, replaces and removes checkpoints', async () => {
    const root = new MemDir();
    const store = await open(root);
    expect(store.mode).toBe(atomic);
    await store.save('mlp', ckpt(1));
    await store.save('cnn', ckpt(2));
    await store.save('mlp', ckpt(3));
    expect(await store.list()).toEqual(['cnn', 'mlp']);
    const c = await store.load('mlp');
    expect(c.step).toBe(3);
    expect(c.tensors.w.data).toEqual(new Float32Array([3, 4]));
    // a second handle on the same folder (a reloaded page) sees the same
    expect((await (await open(root)).load('cnn')).step).toBe(2);
    expect(await store.remove('cnn')).toBe(true);
    expect(await store.remove('cnn')).toBe(false);
    expect(await store.list()).toEqual(['mlp']);
    // no temp or orphan files are left behind
    const dir = await root.getDirectoryHandle('ckpts');
    expect([...dir.entries.keys()].filter((k) => k !== 'index.json')).toHaveLength(1);
  });

  it('keeps the earlier checkpoint when a save fails mid-write', async () => {
    const store = await open(new MemDir());
    await store.save('mlp', ckpt(1));
    MemFile.failAfter = 10;
    try {
      await expect(store.save('mlp', ckpt(2))).rejects.toThrow(/disk full/);
    } finally {
      MemFile.failAfter = -1;
    }
    expect((await store.load('mlp')).step).toBe(1);
    expect(await store.list()).toEqual(['mlp']);
  });

  it('names a missing checkpoint and rejects bad names', async () => {
    const store = await open(new MemDir());
    await expect(store.load('nope')).rejects.toThrow(new OpfsCheckpointError("no checkpoint 'nope' in OPFS folder 'ckpts'"));
    await expect(store.save('../x', ckpt(1))).rejects.toThrow(/bad checkpoint name "..\/x"/);
    await expect(store.save('.hidden', ckpt(1))).rejects.toThrow(OpfsCheckpointError);
  });
});

describe('opfsCheckpoints without OPFS', () => {
  it('says OPFS is missing', async () => {
    await expect(opfsCheckpoints('x')).rejects.toThrow(/no Origin Private File System here/);
  });
});
