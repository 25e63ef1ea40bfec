/**
 * Peak memory of a bench run: construct before the work, call sample() during it (it may be passed as a callback),
 * print it after.
 */

export const MB = 1024 * 1024;

/** Collect garbage when node runs with --expose-gc (a no-op otherwise). */
export function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export class MemSampler {
  readonly rss0: number;
  readonly ab0: number;
  rss: number;
  ab: number;
  constructor() {
    gc();
    const m = process.memoryUsage();
    this.rss0 = this.rss = m.rss;
    this.ab0 = this.ab = m.arrayBuffers;
  }
  sample = (): void => {
    const m = process.memoryUsage();
    if (m.rss > this.rss) this.rss = m.rss;
    if (m.arrayBuffers > this.ab) this.ab = m.arrayBuffers;
  };
  /** Sample once more, then the peaks as text. */
  text(): string {
    this.sample();
    return this.toString();
  }
  toString(): string {
    return `peak rss ${(this.rss / MB).toFixed(0)} MB (+${((this.rss - this.rss0) / MB).toFixed(0)}), array buffers +${((this.ab - this.ab0) / MB).toFixed(0)} MB`;
  }
}
