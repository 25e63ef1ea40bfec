/** Progress on stderr: a redrawn bar on a TTY, occasional plain lines otherwise. */
export class ProgressReporter {
  private lastDraw = 0;
  private lastLine = '';
  private drawn = false;
  private readonly started = Date.now();
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly quiet: boolean,
  ) {}

  update(fraction: number | null, message: string): void {
    if (this.quiet) return;
    const now = Date.now();
    // quick jobs print nothing: a bar after 0.5 s on a terminal, plain lines after 2 s otherwise
    if (now - this.started < (this.out.isTTY ? 500 : 2000)) return;
    if (this.out.isTTY) {
      if (now - this.lastDraw < 100) return;
      this.lastDraw = now;
      const width = 24;
      const bar =
        fraction === null
          ? '[' + ' '.repeat(width).split('').map((_, i) => (i === Math.floor(now / 100) % width ? '=' : ' ')).join('') + ']'
          : '[' + '='.repeat(Math.round(fraction * width)).padEnd(width) + `] ${Math.round(fraction * 100)}%`;
      const cols = this.out.columns ?? 80;
      this.out.write(`\r${`${bar} ${message}`.slice(0, cols - 1).padEnd(cols - 1)}`);
      this.drawn = true;
    } else {
      if (now - this.lastDraw < 2000 || message === this.lastLine) return;
      this.lastDraw = now;
      this.lastLine = message;
      this.out.write(`${fraction === null ? '' : `${Math.round(fraction * 100)}% `}${message}\n`);
    }
  }

  clear(): void {
    if (this.drawn && this.out.isTTY) this.out.write(`\r${' '.repeat((this.out.columns ?? 80) - 1)}\r`);
    this.drawn = false;
  }
}
