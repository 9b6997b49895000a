// The demo's model choices, each a training step compiled on the page's device plus what the page needs around it:
// the next batch's feeds, the labels to score the step's logits against, and an evaluation (test accuracy for the
// MNIST models, a text sample for the char-level GPT). Browser-safe (no DOM, no node:); data comes in as arrays.

import { Graph, type Tensor } from '@neura/ir';
import {
  batches,
  compileGenerator,
  compileInference,
  compileTraining,
  Conv2d,
  cosineLr,
  countCorrect,
  Flatten,
  GPT,
  Linear,
  MaxPool2d,
  type MnistSplit,
  mlp,
  ReLU,
  Rng,
  Sequential,
  type TrainingSession,
} from '@neura/nn';
import { adam, adamW } from '@neura/optim';
import type { NeuraDevice } from '@neura/runtime-webgpu';
import { builtStep } from './builtStep.js';
import type { ModelKind } from './modelKinds.js';

export { MODELS, type ModelKind } from './modelKinds.js';

/** A compiled training step and what the page needs to drive, score and show it. */
export interface DemoModel {
  readonly kind: ModelKind;
  /** The step graph as built (forward, backward, update), before the optimizer. */
  readonly built: Graph;
  readonly train: TrainingSession;
  /** Classes per prediction (10 digits, or the vocabulary). */
  readonly classes: number;
  /** Feeds of step `step` (0-based) of `total`, and the labels its logits are scored against. */
  next(step: number, total: number): { feeds: Record<string, Float32Array | Int32Array>; labels: Int32Array };
  /** After training: test accuracy (MNIST models) or a generated text sample (GPT). */
  evaluate(): Promise<{ accuracy?: number; sample?: string; logits?: ArrayLike<number>; images?: Float32Array; labels?: Int32Array }>;
}

function cnn(): Sequential {
  return new Sequential(
    new Conv2d(1, 8, 5, { padding: 2 }),
    new ReLU(),
    new MaxPool2d(2),
    new Conv2d(8, 16, 5),
    new ReLU(),
    new MaxPool2d(2),
    new Flatten(),
    new Linear(16 * 5 * 5, 10),
  );
}

/** An MNIST classifier (MLP or CNN) trained with Adam and a cosine schedule. */
export async function mnistModel(kind: 'mlp' | 'cnn', data: { train: MnistSplit; test: MnistSplit }, device: NeuraDevice, batch = 32): Promise<DemoModel> {
  const model = kind === 'mlp' ? mlp([784, 128, 10]) : cnn();
  const forward = (g: Graph, x: Tensor) => model.forward(g, kind === 'mlp' ? x : g.reshape(x, [x.shape[0], 1, 28, 28]));
  const g = new Graph();
  const logits = forward(g, g.input('x', [batch, 784]));
  g.output('logits', logits);
  const loss = g.crossEntropy(logits, g.input('labels', [batch], 'i32'));
  const optimizer = adam({ lr: g.input('lr', []) });
  const train = await compileTraining(g, { loss, optimizer, device });
  const lr = new Float32Array(1);
  const schedule = cosineLr(3e-3);
  let it = batches(data.train, 784, { batchSize: batch, shuffleSeed: 1 });
  return {
    kind,
    built: builtStep(g, { loss, optimizer }),
    train,
    classes: 10,
    next(step, total) {
      let b = it.next();
      if (b.done) {
        it = batches(data.train, 784, { batchSize: batch, shuffleSeed: 1, epoch: step });
        b = it.next();
      }
      lr[0] = schedule(step, total);
      const { x, labels } = b.value as { x: Float32Array; labels: Int32Array };
      return { feeds: { x, labels, lr }, labels };
    },
    async evaluate() {
      // the CNN on a software adapter is slow: it is scored on the first 2 000 test images, the MLP on all 10 000
      const evalBatch = 500;
      const count = kind === 'mlp' ? data.test.count : 2000;
      const ge = new Graph();
      const out = forward(ge, ge.input('x', [evalBatch, 784]));
      const infer = await compileInference(ge, { outputs: { logits: out }, device, initialState: await train.stateDict() });
      let correct = 0;
      let first: ArrayLike<number> | undefined;
      for (let s = 0; s + evalBatch <= count; s += evalBatch) {
        const r = await infer.run({ x: data.test.images.subarray(s * 784, (s + evalBatch) * 784) });
        first ??= r.logits.data;
        correct += countCorrect(r.logits.data, data.test.labels.subarray(s, s + evalBatch), 10);
      }
      infer.dispose();
      return { accuracy: correct / count, logits: first, images: data.test.images, labels: data.test.labels };
    },
  };
}

/** Options of a GPT demo generation: a text prompt, how many characters, and the sampling seed and temperature. */
export interface GenerateRequest {
  readonly prompt: string;
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly seed?: number;
}

/** The char-level GPT of the demo: a DemoModel that also generates text from a prompt with its current weights. */
export interface GptDemoModel extends DemoModel {
  /** The corpus's characters: the vocabulary. */
  readonly chars: readonly string[];
  /** A fixed prompt from the text (the same for every load of the same corpus). */
  readonly prompt: string;
  /** Generates after `prompt` with the training session's weights, calling `onText` with each new character. */
  generate(req: GenerateRequest, onText?: (text: string) => void): Promise<string>;
}

/** A character-level GPT on `text`; `evaluate` samples 160 characters after a prompt from the text. */
export async function gptModel(text: string, device: NeuraDevice, batch = 8): Promise<GptDemoModel> {
  const chars = [...new Set(text)].sort();
  const index = new Map(chars.map((c, i) => [c, i]));
  const ids = Int32Array.from(text, (c) => index.get(c) as number);
  const context = 32;
  const model = new GPT({ vocab: chars.length, context, layers: 2, heads: 2, width: 64 });
  const { graph, loss, logits } = model.trainingGraph(batch);
  graph.output('logits', logits);
  const optimizer = adamW({ lr: graph.input('lr', []), weightDecay: 0.01 });
  const train = await compileTraining(graph, { loss, optimizer, device });
  const tokens = new Int32Array(batch * context);
  const targets = new Int32Array(batch * context);
  const lr = new Float32Array(1);
  const schedule = cosineLr(3e-3);
  const rng = new Rng(1);
  const generator = await compileGenerator(model, { device, maxLen: context });
  const at = Math.min(1000, Math.max(0, text.length - 12));
  const fixedPrompt = text.slice(at, at + 12);
  const generate = async (req: GenerateRequest, onText?: (text: string) => void): Promise<string> => {
    const prompt = [...req.prompt].map((c, i) => {
      const id = index.get(c);
      if (id === undefined) throw new RangeError(`generate: the prompt's character ${JSON.stringify(c)} at ${i} is not in the model's vocabulary (${chars.length} characters of the text)`);
      return id;
    });
    if (prompt.length === 0) throw new RangeError('generate: the prompt is empty (give at least one character)');
    await generator.loadStateDict(await train.stateDict());
    let out = '';
    for await (const t of generator.generate(prompt, { maxTokens: req.maxTokens, temperature: req.temperature ?? 0.8, seed: req.seed ?? 1 })) {
      out += chars[t];
      onText?.(chars[t]);
    }
    return out;
  };
  return {
    kind: 'gpt',
    built: builtStep(graph, { loss, optimizer }),
    train,
    classes: chars.length,
    chars,
    prompt: fixedPrompt,
    generate,
    next(step, total) {
      for (let b = 0; b < batch; b++) {
        const at = Math.floor(rng.next() * (ids.length - context - 1));
        tokens.set(ids.subarray(at, at + context), b * context);
        targets.set(ids.subarray(at + 1, at + context + 1), b * context);
      }
      lr[0] = schedule(step, total);
      return { feeds: { tokens, targets, lr }, labels: targets };
    },
    async evaluate() {
      return { sample: `${fixedPrompt}⟶${await generate({ prompt: fixedPrompt, maxTokens: 160 })}` };
    },
  };
}
