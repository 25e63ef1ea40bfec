/**
 * Typed engine errors. Every bad input is rejected at the boundary where it
 * enters with one MechError whose message names what is wrong. The code lets
 * the CLI (exit 2), the dispatcher and the UI tell input errors from failures.
 */
export type MechErrorCode =
  | 'invalid-input' // malformed or out-of-range argument (eps <= 0, NaN, bad CSV, prior not summing to 1, ...)
  | 'not-a-metric' // a distance matrix that is not a metric (SPEC §1 validation)
  | 'too-large' // a dense object or LP model would exceed a memory limit
  | 'not-applicable' // a theorem's hypothesis fails (non-regular prior, no single orbit, ...)
  | 'infeasible' // an LP has no solution
  | 'cancelled' // the job was cancelled
  | 'internal'; // a bug or a solver failure

export class MechError extends Error {
  readonly code: MechErrorCode;
  /** Optional structured detail (e.g. the violating triple) for the UI. */
  readonly detail?: Record<string, unknown>;
  constructor(code: MechErrorCode, message: string, detail?: Record<string, unknown>) {
    super(message);
    this.name = 'MechError';
    this.code = code;
    if (detail !== undefined) this.detail = detail;
  }
}

export function invalid(message: string, detail?: Record<string, unknown>): never {
  throw new MechError('invalid-input', message, detail);
}

/** eps must be a finite positive number (SPEC notation: eps > 0). */
export function assertEpsilon(eps: number, name = 'epsilon'): void {
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps <= 0) {
    invalid(`${name} must be a finite number > 0, got ${String(eps)}`);
  }
}

export function assertPositiveInt(v: number, name: string, min = 1): void {
  if (!Number.isInteger(v) || v < min) invalid(`${name} must be an integer >= ${min}, got ${String(v)}`);
}
