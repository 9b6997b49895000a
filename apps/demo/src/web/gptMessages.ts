// What the demo's GPT worker (src/gptWorker.ts) and the page (src/browser.ts) say to each other on top of
// `@neura/nn/worker`: the run's config, the result, and the generation request (requestWorker). Types only.

export type { GenerateRequest } from './models.js';

/** The page's request: steps, the OPFS folder of the final checkpoint, and how often to stream a sample. */
export interface GptConfig {
  readonly steps: number;
  readonly opfs: string;
  /** Restore the GPT's checkpoint from `opfs` instead of training (the page then generates from it). */
  readonly restore: boolean;
  /** Stream a short sample (ctx.sample) every this many steps; 0 for none. */
  readonly sampleEvery: number;
}

/** A step's next-character accuracy, sent with each step (ctx.metrics). */
export const NEXT_CHAR_ACCURACY = 'nextCharAccuracy';

/** What the GPT worker returns after training (or restoring); the model stays in the worker for requests. */
export interface GptResult {
  /** Steps the weights were trained for (from the checkpoint when restored). */
  readonly step: number;
  readonly restored: boolean;
  /** The OPFS checkpoint name the worker saved ('gpt'), after training. */
  readonly saved?: string;
  readonly compileMs: number;
  readonly trainS: number;
  readonly corpusChars: number;
  readonly vocab: number;
  readonly dispatchesPerStep: number;
  readonly device: string;
  /** A fixed prompt from the text, to generate after (the same on every load). */
  readonly prompt: string;
}
