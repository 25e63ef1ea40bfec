/**
 * A job's time budget, created once when the job starts (its time limit counted from then) and passed down
 * instead of a limit and a start time: each step that needs a budget takes it from here (the finish's reserve, a
 * share for a first solve, the seconds left), so every step counts from the same start. Times are
 * performance.now() milliseconds; a Deadline without a limit never passes.
 */
export class Deadline {
  private constructor(
    /** performance.now() when the budget began (elapsed times count from here). */
    readonly startedAt: number,
    /** Its whole span in seconds (Infinity: no limit). */
    readonly seconds: number,
  ) {}

  /** A budget of `seconds` (undefined: no limit) from `startedAt` (default: now). */
  static after(seconds: number | undefined, startedAt = performance.now()): Deadline {
    return new Deadline(startedAt, seconds ?? Infinity);
  }

  /** Whether it has a limit. */
  get limited(): boolean {
    return this.seconds < Infinity;
  }

  /** performance.now() when it passes (Infinity without a limit). */
  get at(): number {
    return this.startedAt + this.seconds * 1000;
  }

  /** Seconds left at `now` (Infinity without a limit; negative once it has passed). */
  left(now = performance.now()): number {
    return this.seconds - (now - this.startedAt) / 1000;
  }

  /** The same start, `seconds` earlier: what is left after keeping `seconds` for what follows. */
  reserve(seconds: number): Deadline {
    return new Deadline(this.startedAt, this.seconds - seconds);
  }

  /** A budget from `now` of `fraction` of this one's whole span (a first solve's share of the job's limit). */
  share(fraction: number, now = performance.now()): Deadline {
    return new Deadline(now, this.limited ? fraction * this.seconds : Infinity);
  }

  /** A budget of `seconds` from `now` (no limit when this one has none). */
  from(now: number, seconds: number): Deadline {
    return new Deadline(now, this.limited ? seconds : Infinity);
  }
}
