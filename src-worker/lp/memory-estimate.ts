import { MechError } from '../errors';

/**
 * Estimated peak WebAssembly heap (bytes) HiGHS needs to load and solve a
 * model with the given columns, rows and nonzeros (placeholder, calibrated below).
 */
export function estimateLpBytes(numCols: number, numRows: number, nonzeros: number): number {
  return 32e6 + 200 * numCols + 200 * numRows + 60 * nonzeros;
}

/** The WebAssembly heap of the HiGHS build is capped at 2 GiB; keep a margin for the runtime itself. */
export const LP_MEMORY_LIMIT_BYTES: number = (() => {
  const env = typeof process !== 'undefined' ? process.env?.MECHSTUDIO_LP_MEMORY_LIMIT : undefined;
  const v = env ? Number(env) : NaN;
  return Number.isFinite(v) && v > 0 ? v : 1.75 * 2 ** 30;
})();

/** Refuse early, before building or solving, a model whose estimate exceeds the limit. */
export function assertLpFits(numCols: number, numRows: number, nonzeros: number, what: string, limit = LP_MEMORY_LIMIT_BYTES): void {
  const est = estimateLpBytes(numCols, numRows, nonzeros);
  if (est > limit) {
    throw new MechError(
      'too-large',
      `${what} would need about ${(est / 2 ** 20).toFixed(0)} MiB of solver memory (${numCols} variables, ${numRows} constraints, ${nonzeros} nonzeros), over the ${(limit / 2 ** 20).toFixed(0)} MiB limit; use a smaller domain, fewer outputs or a sparser constraint graph (spanner)`,
      { estimateBytes: est, limitBytes: limit, variables: numCols, constraints: numRows, nonzeros },
    );
  }
}
