/** The part of a stream the CLI writes to (process.stdout / process.stderr, or a capture in tests). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** On a terminal, the bar appears after this (ms): quick jobs and refusals draw nothing. */
const TTY_DELAY_MS = 500;
/**
 * Without a terminal, plain progress lines start after this (ms). They cannot
 * be taken back, so they are kept for real long computations: a refusal of
 * bad input comes well before (the job boundary estimates size and work in
 * well under a second) and is then the only line on stderr.
 */
const PLAIN_DELAY_MS = 10_000;

/**
 * Progress on stderr: a redrawn bar on a TTY (cleared before anything else
 * is written), occasional plain lines otherwise.
 */
export class ProgressReporter {
  private lastDraw = 0;
  private lastLine = '';
  private drawn = false;
  private readonly started = Date.now();
  constructor(
    private readonly out: ProgressStream,
    private readonly quiet: boolean,
  ) {}

  update(fraction: number | null, message: string): void {
    if (this.quiet) return;
    const now = Date.now();
    if (now - this.started < (this.out.isTTY ? TTY_DELAY_MS : PLAIN_DELAY_MS)) return;
    if (this.out.isTTY) {
      if (now - this.lastDraw < 100) return;
      this.lastDraw = now;
      const width = 24;
      const bar =
        fraction === null
          ? '[' +
            ' '
              .repeat(width)
              .split('')
              .map((_, i) => (i === Math.floor(now / 100) % width ? '=' : ' '))
              .join('') +
            ']'
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
