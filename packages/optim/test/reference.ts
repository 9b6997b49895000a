// Plain-TypeScript float64 references of PyTorch's optimizers (torch.optim.SGD, Adam, AdamW, dampening 0,
// no amsgrad), written from the formulas in PyTorch's documentation, and the tiny problem the tests solve.

/** One parameter's values and optimizer state in a reference run. */
export interface RefParam {
  p: number[];
  buf?: number[];
  m?: number[];
  v?: number[];
}

/** torch.optim.SGD step for one param (`step` counts from 1). */
export function sgdRef(s: RefParam, grad: number[], step: number, o: { lr: number; momentum: number; nesterov: boolean; weightDecay: number }): void {
  let d = grad.map((g, i) => g + o.weightDecay * s.p[i]);
  if (o.momentum !== 0) {
    const buf = step === 1 || !s.buf ? [...d] : s.buf.map((b, i) => o.momentum * b + d[i]);
    s.buf = buf;
    d = o.nesterov ? d.map((x, i) => x + o.momentum * buf[i]) : buf;
  }
  s.p = s.p.map((x, i) => x - o.lr * d[i]);
}

/** torch.optim.Adam / AdamW step for one param (`step` counts from 1). */
export function adamRef(
  s: RefParam,
  grad: number[],
  step: number,
  o: { lr: number; beta1: number; beta2: number; eps: number; weightDecay: number; decoupled: boolean },
): void {
  let g = grad;
  if (o.decoupled) s.p = s.p.map((x) => x * (1 - o.lr * o.weightDecay));
  else g = grad.map((x, i) => x + o.weightDecay * s.p[i]);
  const m = (s.m ?? g.map(() => 0)).map((x, i) => o.beta1 * x + (1 - o.beta1) * g[i]);
  const v = (s.v ?? g.map(() => 0)).map((x, i) => o.beta2 * x + (1 - o.beta2) * g[i] * g[i]);
  s.m = m;
  s.v = v;
  const bc1 = 1 - o.beta1 ** step;
  const bc2 = 1 - o.beta2 ** step;
  const stepSize = o.lr / bc1;
  s.p = s.p.map((x, i) => x - (stepSize * m[i]) / (Math.sqrt(v[i]) / Math.sqrt(bc2) + o.eps));
}

/** The test problem: gradients that depend on the params, so that each step sees a new gradient. */
export const PROBLEM = {
  w1: [0.5, -0.3, 0.8],
  w2: [0.1, -0.7, 0.4, 1.2],
  target: [0.2, 0.4, -0.6],
  scale: [1.5, -0.5, 2, 0.25],
  /** d/dw1 = w1 − target; d/dw2 = w2 ⊙ scale + 0.3. */
  grad1: (w1: number[]) => w1.map((x, i) => x - PROBLEM.target[i]),
  grad2: (w2: number[]) => w2.map((x, i) => x * PROBLEM.scale[i] + 0.3),
};
