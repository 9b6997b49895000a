// nanoGPT's training loop ported to neura with GPT's defaults, step for step against PyTorch (float64 both sides): exact GELU, the
// tied head loaded from the file `safetensors.torch.save_model` writes (lm_head.weight only), cross-entropy with
// ignore_index -1, AdamW in two param groups (decay on matrices only, betas 0.9/0.95), nanoGPT's warm-up + cosine
// schedule and gradient clipping at 1.0. Reference: tooling/fixtures/nanogpt_port.py → nanogpt-port.json.

import { readFileSync } from 'node:fs';
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { buildTrainingStep, cosineLr, GPT, importTorchStateDict } from '@neura/nn';
import { adamW } from '@neura/optim';
import { describe, expect, it } from 'vitest';

interface Encoded {
  shape: number[];
  data: number[];
}
interface Fixture {
  config: { vocab: number; context: number; layers: number; heads: number; width: number; batch: number };
  schedule: { lr: number; minLr: number; warmup: number; decayIters: number };
  optimizer: { weightDecay: number; betas: [number, number]; gradClip: number };
  state: Record<string, Encoded>;
  batches: { tokens: number[]; targets: number[] }[];
  lrs: number[];
  losses: number[];
  final: Record<string, Encoded>;
}

const fx = JSON.parse(readFileSync(new URL('../../../tooling/fixtures/nanogpt-port.json', import.meta.url), 'utf8')) as Fixture;
const f64 = (e: Encoded): TensorValue => ({ shape: e.shape, dtype: 'f32', data: Float64Array.from(e.data) });
const asTorch = (s: Record<string, Encoded>) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, f64(v)]));

describe('a port of the nanoGPT training loop', () => {
  const { vocab, context, layers, heads, width, batch } = fx.config;
  const model = new GPT({ vocab, context, layers, heads, width, tiedHead: true });

  it("uses nanoGPT's learning rate at every step (warm-up, cosine to min_lr at lr_decay_iters)", () => {
    const { lr, minLr, warmup, decayIters } = fx.schedule;
    const schedule = cosineLr(lr, { warmup, finalLr: minLr });
    for (const [step, want] of fx.lrs.entries()) expect(schedule(step, decayIters + 1), `step ${step}`).toBeCloseTo(want, 14);
  });

  it("matches PyTorch's loss at each of 20 steps and the final parameters (float64 interpreter)", () => {
    const graph = new Graph();
    const tokens = graph.input('tokens', [batch, context], 'i32');
    const targets = graph.input('targets', [batch * context], 'i32');
    const lr = graph.input('lr', [], 'f32');
    const loss = graph.crossEntropy(model.logitsRows(graph, tokens), targets, { ignoreIndex: -1 });
    const rank = new Map(model.namedParameters().map(([name, p]) => [name, p.shape.length]));
    const { weightDecay, betas, gradClip } = fx.optimizer;
    const group = (name: string, decay: boolean) => ({
      params: (n: string) => ((rank.get(n) ?? 0) >= 2) === decay,
      optimizer: adamW({ lr, weightDecay: decay ? weightDecay : 0, beta1: betas[0], beta2: betas[1], name }),
    });
    buildTrainingStep(graph, { loss, clipGradNorm: gradClip, groups: [group('decay', true), group('noDecay', false)] });

    let state: Record<string, TensorValue> = importTorchStateDict(asTorch(fx.state), model, model.torchImportOptions());
    const losses: number[] = [];
    fx.batches.forEach((b, step) => {
      const feeds = { tokens: tensor([batch, context], b.tokens, 'i32'), targets: tensor([batch * context], b.targets, 'i32'), lr: f64({ shape: [], data: [fx.lrs[step]] }) };
      const r = interpret(graph, feeds, state, 'f64');
      losses.push(r.outputs.loss.data[0]);
      state = { ...state, ...r.updates };
    });
    expect(losses).toBeAllclose(fx.losses, { rtol: 1e-12, atol: 1e-14 });
    expect(losses[19]).toBeLessThan(losses[0] - 0.3); // it learned: the comparison is not of a flat curve

    const final = importTorchStateDict(asTorch(fx.final), model, model.torchImportOptions());
    for (const [name, want] of Object.entries(final)) expect(state[name].data, name).toBeAllclose(want.data, { rtol: 1e-10, atol: 1e-13 });
  }, 120_000);
});
