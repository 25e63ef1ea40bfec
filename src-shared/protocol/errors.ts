/**
 * The one list of error codes a job can end with, what each means to a
 * caller, and the one conversion of anything thrown into a serialisable
 * JobError. The engine's MechError (src-shared/errors.ts), the protocol's
 * jobErrorSchema (below) and the CLI's exit statuses (src-main/cli) all
 * derive from the table below (docs/protocol.md, error codes).
 */
import { z } from 'zod';

/** Every error code, with whether it blames the input (the CLI exits 2 on those). */
const ERROR_CODE_TABLE = {
  'invalid-input': {
    input: true,
    meaning: 'malformed or out-of-range input (eps <= 0, NaN, bad CSV, prior not summing to 1, ...)',
  },
  'not-a-metric': { input: true, meaning: 'a distance matrix that is not a metric' },
  'too-large': { input: true, meaning: 'a dense object or LP model would exceed a memory or work limit' },
  'not-applicable': { input: true, meaning: "a theorem's hypothesis fails (non-regular prior, no single orbit, ...)" },
  'outside-workspace': {
    input: true,
    meaning: "a path the web page sent lies outside the server's workspace root or passes through a hidden name",
  },
  'queue-unreachable': {
    input: false,
    meaning: 'the job queue (Redis) could not be reached or refused the connection',
  },
  infeasible: { input: false, meaning: 'an LP has no solution' },
  cancelled: { input: false, meaning: 'the job was cancelled' },
  internal: { input: false, meaning: 'a bug or a solver failure' },
  crashed: {
    input: false,
    meaning:
      'the worker running the job died (out of memory, killed); set by the dispatcher, never thrown by the engine',
  },
} as const;

export type JobErrorCode = keyof typeof ERROR_CODE_TABLE;

/** The codes in table order (for z.enum). */
export const ERROR_CODES = Object.keys(ERROR_CODE_TABLE) as [JobErrorCode, ...JobErrorCode[]];

function isErrorCode(x: unknown): x is JobErrorCode {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODE_TABLE, x);
}

/** The serialisable form of a MechError (src-shared/errors.ts). */
export const errorCodeSchema = z.enum(ERROR_CODES);
export const jobErrorSchema = z.object({
  code: errorCodeSchema,
  message: z.string(),
  detail: z.record(z.string(), z.unknown()).optional(),
});
export type JobError = z.infer<typeof jobErrorSchema>;

/** True for the codes that blame the input rather than the engine. */
export function isInputErrorCode(code: string): boolean {
  return isErrorCode(code) && ERROR_CODE_TABLE[code].input;
}

/** A detail record as plain JSON data (what crosses a thread, IPC or socket), or undefined when it is not one. */
function plainDetail(detail: unknown): Record<string, unknown> | undefined {
  if (!detail || typeof detail !== 'object') return undefined;
  try {
    return JSON.parse(JSON.stringify(detail)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * Anything thrown, as a serialisable JobError: an error carrying a known
 * code (MechError, ApiError, a JobError itself) keeps code, message and
 * detail; an allocation failure is 'too-large'; anything else is
 * 'internal' with its message prefixed "internal error: ".
 */
export function toJobError(e: unknown): JobError {
  const o = e && typeof e === 'object' ? (e as { code?: unknown; message?: unknown; detail?: unknown }) : undefined;
  if (o && isErrorCode(o.code)) {
    const err: JobError = { code: o.code, message: typeof o.message === 'string' ? o.message : String(e) };
    const detail = plainDetail(o.detail);
    if (detail !== undefined) err.detail = detail;
    return err;
  }
  if (e instanceof RangeError && /allocation|memory|Array buffer/i.test(e.message))
    return { code: 'too-large', message: `out of memory: ${e.message}` };
  const msg = typeof o?.message === 'string' ? o.message : String(e);
  return { code: 'internal', message: msg.startsWith('internal error') ? msg : `internal error: ${msg}` };
}
