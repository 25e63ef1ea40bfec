/**
 * Typed engine errors. Every bad input is rejected at the boundary where it
 * enters with one MechError whose message names what is wrong. The code lets
 * the CLI (exit 2), the dispatcher and the UI tell input errors from failures.
 */
import type { JobErrorCode } from './protocol/index';

/**
 * What the engine throws: every protocol error code but 'crashed' (the dispatcher's, when a worker dies). The codes and
 * their meaning are listed once, in src-shared/protocol/errors.ts.
 */
export type MechErrorCode = Exclude<JobErrorCode, 'crashed'>;

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

/**
 * The message of anything thrown: an Error's message, or the string message of an
 * error-shaped object (an ApiError crosses the Electron context bridge as a plain
 * object { name, code, message, detail }), else its text.
 */
export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  const m = e !== null && typeof e === 'object' ? (e as { message?: unknown }).message : undefined;
  return typeof m === 'string' ? m : String(e);
}
