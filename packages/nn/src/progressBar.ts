// A one-line terminal progress bar for training loops: redraws in place on a TTY, prints a line every few
// percent otherwise (CI logs). Writes to stderr so stdout stays machine-readable (the final JSON line).

/** What the bar shows. */
export interface Progress {
  /** Steps done. */
  step: number;
  /** Steps in total. */
  total: number;
  /** Latest loss read back, if any. */
  loss?: number;
  /** Throughput over the recent steps. */
  stepsPerSecond?: number;
  /** Text shown before the bar. */
  label?: string;
}

/** Renders progress to a stream (stderr by default). */
export class ProgressBar {
  private lastPercent = -1;
  constructor(private readonly stream: { write(s: string): unknown; isTTY?: boolean } = globalThis.process?.stderr ?? { write: (s: string) => console.log(s.trimEnd()) }) {}

  /** Redraws with the latest figures. */
  update(p: Progress): void {
    const frac = p.total ? p.step / p.total : 0;
    const width = 30;
    const filled = Math.round(frac * width);
    const bar = `${'='.repeat(Math.max(0, filled - 1))}${filled ? '>' : ''}${' '.repeat(width - filled)}`;
    const loss = p.loss === undefined ? '' : ` loss ${p.loss.toFixed(4)}`;
    const rate = p.stepsPerSecond === undefined ? '' : ` ${p.stepsPerSecond.toFixed(1)} steps/s`;
    const text = `${p.label ?? 'train'} [${bar}] ${(frac * 100).toFixed(0).padStart(3)}% ${p.step}/${p.total}${loss}${rate}`;
    if (this.stream.isTTY) this.stream.write(`\r${text}\x1b[K`);
    else {
      const pct = Math.floor(frac * 10) * 10;
      if (pct !== this.lastPercent) {
        this.lastPercent = pct;
        this.stream.write(`${text}\n`);
      }
    }
  }

  /** Ends the line. */
  done(): void {
    if (this.stream.isTTY) this.stream.write('\n');
  }
}
