// The demo's grid of test digits with the model's guesses (green, or red with the true label), drawn on an
// OffscreenCanvas in the MNIST worker: the page only shows the finished PNG, so drawing costs its main thread
// nothing (a canvas 2D context made on the page was a ~60 ms long task in headless Chromium, web:check).

import { argmaxRow } from '@neura/nn';

/** The grid's size in pixels (8 × 4 digits of 28 px, 44 px apart, a label line under each row). */
export const DIGITS_SIZE = { width: 352, height: 240 } as const;

/** Renders the first 32 test digits and guesses as a PNG blob. */
export async function digitsPng(images: Float32Array, logits: ArrayLike<number>, labels: Int32Array): Promise<Blob> {
  const canvas = new OffscreenCanvas(DIGITS_SIZE.width, DIGITS_SIZE.height);
  drawDigits(canvas, images, logits, labels);
  return canvas.convertToBlob({ type: 'image/png' });
}

/** Draws 32 test digits (normalized images) with the model's guesses, red where wrong. */
export function drawDigits(canvas: OffscreenCanvas, images: Float32Array, logits: ArrayLike<number>, labels: Int32Array): void {
  const ctx = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
  ctx.font = '13px system-ui';
  const cell = 44;
  // one ImageData for all 32 digits and a single putImageData (32 small ones were ~85 ms on the page's main thread)
  const grid = ctx.createImageData(canvas.width, canvas.height);
  const px = new Uint32Array(grid.data.buffer);
  const le = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  for (let k = 0; k < 32; k++) {
    const x0 = (k % 8) * cell;
    const y0 = Math.floor(k / 8) * (cell + 16);
    for (let p = 0; p < 784; p++) {
      const v = Math.max(0, Math.min(255, Math.round((images[k * 784 + p] * 0.3081 + 0.1307) * 255)));
      const at = (y0 + Math.floor(p / 28)) * canvas.width + x0 + (p % 28);
      if (at < px.length) px[at] = le ? 0xff000000 | (v << 16) | (v << 8) | v : ((v << 24) | (v << 16) | (v << 8) | 0xff) >>> 0;
    }
  }
  ctx.putImageData(grid, 0, 0);
  for (let k = 0; k < 32; k++) {
    const x = (k % 8) * cell;
    const y = Math.floor(k / 8) * (cell + 16);
    const guess = argmaxRow(logits, k, 10);
    ctx.fillStyle = guess === labels[k] ? '#2a9d8f' : '#e76f51';
    ctx.fillText(`${guess}${guess === labels[k] ? '' : ` (${labels[k]})`}`, x + 4, y + 42);
  }
}
