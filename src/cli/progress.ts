/**
 * A one-line progress bar for a terminal; on anything else (a pipe, a log file) one line per 10 %
 * instead of carriage-return redraws.
 */
export class ProgressBar {
  private readonly started = performance.now();
  private lastDecile = -1;
  private lastDraw = 0;
  private drawn = false;

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
    private readonly title: string,
  ) {}

  update(done: number, total: number, label: string): void {
    const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
    const percent = Math.floor(fraction * 100);
    const elapsed = ((performance.now() - this.started) / 1000).toFixed(1);
    if (this.out.isTTY) {
      const now = performance.now();
      if (now - this.lastDraw < 80 && fraction < 1) return;
      this.lastDraw = now;
      const width = 28;
      const filled = Math.round(fraction * width);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
      const line = `${this.title} [${bar}] ${String(percent).padStart(3)}%  ${elapsed}s  ${label}`;
      const max = (this.out.columns ?? 100) - 1;
      this.out.write(`\r${line.length > max ? line.slice(0, max) : line}\x1b[K`);
      this.drawn = true;
      return;
    }
    const decile = Math.floor(percent / 10);
    if (decile !== this.lastDecile) {
      this.lastDecile = decile;
      this.out.write(`${this.title}: ${String(percent).padStart(3)}%  ${elapsed}s  ${label}\n`);
    }
  }

  /** Ends the bar's line (on a terminal) so that the next output starts on a fresh line. */
  end(): void {
    if (this.out.isTTY && this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
