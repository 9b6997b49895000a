// Checkpoints in the browser's Origin Private File System (OPFS), in folder `dirName`: save / load / list /
// remove, each save atomic. Mode 'move' (where FileSystemFileHandle.move exists: Chromium 110+, Firefox 111+): write
// `.<name>.<random>.tmp`, close, then move it over `<name>.ckpt` (a rename; Chromium 156 replaces an existing file,
// checked by the demo's web:check). Mode 'index' (no move, e.g. Safari): write a fresh `<name>.<random>.ckpt`, then
// swap `index.json` (name → file), which createWritable commits atomically on close, then delete the old file.
// A reader never sees a half-written checkpoint. Bytes use the existing encoding (encodeCheckpoint / readCheckpoint).

import { type Checkpoint, readCheckpoint } from '../checkpoint/checkpoint.js';

/** How saves are made atomic (see the file header). */
export type OpfsAtomicMode = 'move' | 'index';

/** Options of `opfsCheckpoints`. */
export interface OpfsCheckpointOptions {
  /** The folder's parent (default: `navigator.storage.getDirectory()`, the OPFS root). */
  root?: FileSystemDirectoryHandle;
  /** 'auto' (default): 'move' where FileSystemFileHandle.move exists, else 'index'. */
  atomic?: OpfsAtomicMode | 'auto';
}

/** A folder of named checkpoints in OPFS. */
export interface OpfsCheckpoints {
  /** The atomic-save mode in use. */
  readonly mode: OpfsAtomicMode;
  /** Saves checkpoint bytes (from `saveCheckpoint` / `encodeCheckpoint`) as `name`, replacing any earlier one. */
  save(name: string, bytes: Uint8Array | ArrayBuffer): Promise<void>;
  /** The bytes saved as `name`; an OpfsCheckpointError when there is none. */
  loadBytes(name: string): Promise<Uint8Array>;
  /** The decoded checkpoint saved as `name` (pass it to `restoreCheckpoint` or `fit({ resume })`). */
  load(name: string): Promise<Checkpoint>;
  /** Names of the saved checkpoints, sorted. */
  list(): Promise<string[]>;
  /** Removes checkpoint `name`; true when it existed. */
  remove(name: string): Promise<boolean>;
}

/** An OPFS checkpoint that is missing, a bad name, or no OPFS in this browser. */
export class OpfsCheckpointError extends Error {
  constructor(message: string) {
    super(`opfsCheckpoints: ${message}`);
    this.name = 'OpfsCheckpointError';
  }
}

const INDEX = 'index.json';
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

function checkName(name: string): void {
  if (!NAME.test(name) || name.endsWith('.tmp') || name === INDEX)
    throw new OpfsCheckpointError(`bad checkpoint name ${JSON.stringify(name)}: use 1-128 letters, digits, '_', '-' or '.', not starting with '.' or '-'`);
}

const random = () => Math.random().toString(36).slice(2, 10);

async function writeFile(dir: FileSystemDirectoryHandle, name: string, data: Uint8Array | string): Promise<FileSystemFileHandle> {
  const h = await dir.getFileHandle(name, { create: true });
  const w = await h.createWritable(); // writes go to a swap file; close() commits them all at once
  try {
    await w.write(data as FileSystemWriteChunkType);
    await w.close();
  } catch (e) {
    await w.abort().catch(() => {});
    throw e;
  }
  return h;
}

const isNotFound = (e: unknown) => e instanceof DOMException && (e.name === 'NotFoundError' || e.name === 'TypeMismatchError');

/** Opens (creating) OPFS folder `dirName` for checkpoints. */
export async function opfsCheckpoints(dirName: string, opts: OpfsCheckpointOptions = {}): Promise<OpfsCheckpoints> {
  if (!/^[^/\\]+$/.test(dirName) || dirName === '.' || dirName === '..') throw new OpfsCheckpointError(`bad folder name ${JSON.stringify(dirName)}`);
  const storage = (globalThis as { navigator?: Navigator }).navigator?.storage;
  if (!opts.root && !storage?.getDirectory) throw new OpfsCheckpointError('no Origin Private File System here (navigator.storage.getDirectory is missing; it needs a secure context)');
  const root = opts.root ?? (await (storage as StorageManager).getDirectory());
  const dir = await root.getDirectoryHandle(dirName, { create: true });
  const canMove = typeof FileSystemFileHandle !== 'undefined' && typeof (FileSystemFileHandle.prototype as { move?: unknown }).move === 'function';
  const want = opts.atomic ?? 'auto';
  if (want !== 'auto' && want !== 'move' && want !== 'index') throw new OpfsCheckpointError(`atomic must be 'auto', 'move' or 'index', got ${JSON.stringify(want)}`);
  if (want === 'move' && !canMove) throw new OpfsCheckpointError("atomic: 'move' asked for, but FileSystemFileHandle.move is missing in this browser (use 'auto')");
  const mode: OpfsAtomicMode = want === 'auto' ? (canMove ? 'move' : 'index') : want;

  const readIndex = async (): Promise<Record<string, string>> => {
    try {
      const text = await (await (await dir.getFileHandle(INDEX)).getFile()).text();
      return JSON.parse(text) as Record<string, string>;
    } catch (e) {
      if (isNotFound(e)) return {};
      throw e;
    }
  };
  const fileOf = async (name: string): Promise<string | undefined> => {
    if (mode === 'move') return `${name}.ckpt`;
    const idx = await readIndex();
    return Object.hasOwn(idx, name) ? idx[name] : undefined;
  };
  const missing = (name: string) => new OpfsCheckpointError(`no checkpoint '${name}' in OPFS folder '${dirName}'`);

  const store: OpfsCheckpoints = {
    mode,
    async save(name, bytes) {
      checkName(name);
      const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
      if (mode === 'move') {
        const tmpName = `.${name}.${random()}.tmp`;
        const tmp = await writeFile(dir, tmpName, data);
        try {
          await (tmp as FileSystemFileHandle & { move(name: string): Promise<void> }).move(`${name}.ckpt`);
        } catch (e) {
          await dir.removeEntry(tmpName).catch(() => {});
          throw e;
        }
        return;
      }
      const file = `${name}.${random()}.ckpt`;
      await writeFile(dir, file, data);
      const idx = await readIndex();
      const old = Object.hasOwn(idx, name) ? idx[name] : undefined;
      await writeFile(dir, INDEX, JSON.stringify({ ...idx, [name]: file }));
      if (old) await dir.removeEntry(old).catch(() => {});
    },
    async loadBytes(name) {
      checkName(name);
      const file = await fileOf(name);
      if (!file) throw missing(name);
      try {
        return new Uint8Array(await (await (await dir.getFileHandle(file)).getFile()).arrayBuffer());
      } catch (e) {
        if (isNotFound(e)) throw missing(name);
        throw e;
      }
    },
    async load(name) {
      return readCheckpoint(await store.loadBytes(name));
    },
    async list() {
      if (mode === 'index') return Object.keys(await readIndex()).sort();
      const names: string[] = [];
      for await (const [k, h] of dir as unknown as AsyncIterable<[string, FileSystemHandle]>) if (h.kind === 'file' && k.endsWith('.ckpt') && !k.startsWith('.')) names.push(k.slice(0, -5));
      return names.sort();
    },
    async remove(name) {
      checkName(name);
      const file = await fileOf(name);
      if (!file) return false;
      if (mode === 'index') {
        const idx = await readIndex();
        delete idx[name];
        await writeFile(dir, INDEX, JSON.stringify(idx));
      }
      try {
        await dir.removeEntry(file);
        return true;
      } catch (e) {
        if (isNotFound(e)) return false;
        throw e;
      }
    },
  };
  return store;
}
