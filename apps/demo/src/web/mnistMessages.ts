// What the demo's MNIST worker (src/mnistWorker.ts) and the page (src/browser.ts) say to each other on top of
// `@neura/nn/worker`: the run's config, the panels the worker renders (HTML strings), and the result. Types only.

/** The page's request: which model, how many steps, and the OPFS folder the worker saves the final checkpoint in. */
export interface MnistConfig {
  readonly kind: 'mlp' | 'cnn';
  readonly steps: number;
  readonly opfs: string;
  /** Restore the model's checkpoint from `opfs` and evaluate it instead of training. */
  readonly restore: boolean;
}

/**
 * A panel the worker rendered (the panels are pure functions of the device, graph and profile, which stay there);
 * `images` are the PNG bytes of its `<img data-image="key">` elements (drawn in the worker, transferred).
 */
export interface PanelMessage {
  readonly panel: 'adapter' | 'egraph' | 'timeline';
  readonly html: string;
  readonly images?: Readonly<Record<string, ArrayBuffer>>;
}

/** A step's batch accuracy, sent with each step (ctx.metrics). */
export const BATCH_ACCURACY = 'batchAccuracy';

/** What the worker returns after training and evaluation. */
export interface MnistResult {
  readonly accuracy: number;
  /** Steps the weights were trained for (from the checkpoint when restored). */
  readonly step: number;
  readonly restored: boolean;
  /** The OPFS checkpoint name the worker saved (`<kind>`), after training. */
  readonly saved?: string;
  readonly compileMs: number;
  /** MNIST's four IDX files: gzipped bytes fetched, and their size decoded. */
  readonly mnistBytes: { readonly transferred: number; readonly decoded: number };
  readonly trainS: number;
  readonly dispatchesPerStep: number;
  readonly device: string;
  /** The first 32 test digits with the model's guesses, a PNG drawn in the worker (web/digits.ts). */
  readonly digits: Blob;
}
