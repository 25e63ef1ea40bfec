/**
 * Numerical tolerances, stated once for the whole engine.
 */

/**
 * Relative tolerance for privacy checks: ratio <= e^(eps d) * (1 + REL_TOL) passes (SPEC §4); also the metric axioms'
 * tolerance.
 */
export const REL_TOL = 1e-9;

/** A prior or a channel row must sum to 1 within this absolute tolerance. */
export const SUM_TOL = 1e-9;

/** Entries in [-NEG_TOL, 0) are treated as rounding zeros; below that they are negative (an error). */
export const NEG_TOL = 1e-12;

/**
 * Tight-constraints weights: z >= -Z_TOL * max(1, max|z|) counts as
 * non-negative (rounding of a zero; clamped to 0). One rule for the dense
 * construction, the structured construction and the threshold search, so
 * they never disagree about existence (SPEC §2, §5).
 */
export const Z_TOL = 1e-9;

/** Two posteriors are merged into one inner of a hyper-distribution when they agree within this. */
export const MERGE_TOL = 1e-9;

/**
 * A curve "attains" a bound (sweep charts) where it is within this relative
 * tolerance of it: the bound (sum of mu from a Phi solve, structured solves
 * reach ~1e-10) and the curve (measured on the built channel) come from
 * different computations, and LP mechanisms stop at a certified gap of 1e-6.
 */
export const BOUND_ATTAINED_TOL = 1e-6;
