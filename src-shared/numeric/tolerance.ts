/**
 * The tolerances the renderer needs as well as the engine (the engine's full
 * list, which re-exports these, is src-worker/numeric/tolerance.ts).
 */

/** Relative tolerance for privacy checks: ratio <= e^(eps d) * (1 + REL_TOL) passes (SPEC §4); also the metric axioms' tolerance. */
export const REL_TOL = 1e-9;
