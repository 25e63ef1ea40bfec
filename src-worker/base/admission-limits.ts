/**
 * The engine's work and size limits, stated once. The admission estimate
 * (./admission.ts) compares a job's cost, computed from the request alone
 * before anything is allocated, with these numbers and refuses the job with
 * MechError 'too-large' when it could not complete in bounded memory and
 * time. Each value says why it is what it is; throughput figures were
 * measured on the 2-core reference machine (Node 22, one worker thread).
 */
export const ADMISSION_LIMITS = {
  /**
   * Points of any domain. Every job holds at least a prior (8 bytes a
   * point) and most domains an edge list (16 more), so 2^26 points is already
   * ~1.5 GiB; it is also the answer-domain limit (MAX_ANSWERS).
   */
  maxPoints: 2 ** 26,

  /**
   * Channel entries generated row by row and measured in one streaming pass
   * (n x m for every explicit mechanism: tg, rr, exponential, laplace,
   * planar-laplace, symmetric). Measured 0.5-1.5e8 entries/s for the cheap
   * rows: measured rr 6e8/s, tg 2.5e8/s, laplace 5.5e7/s, exponential
   * 4e7/s (line:10^4 = 1e8 entries in 1.8-2.3 s). 1e9 entries is 2-25 s
   * with progress reported; line:200000 rr (4e10 entries) would be minutes
   * to an hour and is refused.
   */
  maxStreamEntries: 1e9,

  /**
   * Points solved by the structured tight-constraints solver (FFT + PCG on
   * lattices), summed over the job's solves (a threshold search or a sweep
   * solves once per eps). Whole mechanism jobs measured: line:10^6 3.5 s,
   * line:2^21 7 s, grid:1448x1448 (2^21) 14 s, line:4*10^6 23 s and
   * 1.1 GB. The FFT setup reports no progress, so the job only announces
   * its estimate: 2^21 points keeps that silent phase at ~15 s at most.
   */
  maxTightPoints: 2 ** 21,

  /**
   * Dense tight-constraints solves (no fast solver: sum/avg with V > 1,
   * where Phi is not positive definite and MINRES falls back to LU;
   * kcount with K >= 3; graph/custom): n^3 per solve, measured ~1e9/s
   * (avg:50,50 = 1.6e10: 17 s), so 4e9 is ~4 s; avg:1000,1000 (10^18) is
   * refused at once instead of running for hours.
   */
  maxTightDenseWork: 4e9,

  /**
   * Planar Laplace offset tables: one adaptive integration per cell offset,
   * (2R-1)(2C-1) of them, computed before the first row (no progress).
   * grid:100x100 (4e4 integrations + 1e8 streamed entries) takes 0.8 s; the
   * stream limit already keeps grids under ~177 x 177 (1.3e5 integrations),
   * so this only names the right cause for larger grids.
   */
  maxPlanarIntegrations: 2e6,

  /**
   * Privacy check work (SPEC §4): constrained pairs x outputs entry
   * comparisons (pairs = graph edges on graph metrics, else all n(n-1)/2).
   * Measured: check of rr on line:40000 (1.6e9) 21-27 s, with row
   * progress, so 2e9 is at most ~30 s; clique:2000 (4e9) and clique:3000
   * (1.35e10) are refused at once.
   */
  maxCheckWork: 2e9,

  /**
   * The same for an all-pairs check (no graph edges), which takes the ln
   * scan (check/log-ratio-scan.ts: ln of each entry once, then a subtract
   * and two compares per pair and output in a WebAssembly SIMD kernel, on
   * every core): ~10 times the walk's throughput, so ~10 times its work in
   * the same time. Measured (`npm run bench -- check`): 2,500 locations
   * (grid:50x50, the largest optimal LP a time limit returns), 7.8e9
   * comparisons, in 2.6 s on both cores of a quiet machine (4.5 s on one;
   * the walk: 63.7 s), 12-20 s with the cores shared (load average 13-15).
   */
  maxScanCheckWork: 2e10,

  /**
   * Building an LP's privacy rows: constrained pairs x outputs (each pair
   * gives one row per output; the orbit reduction still visits every one
   * to map it to its orbit). Beyond ~2e8 rows the build alone takes
   * minutes, whatever the solver memory (lp/solver/memory-estimate.ts) says after.
   */
  maxLpRowVisits: 2e8,

  /**
   * The exact (all-pairs) optimal LP by decomposition (lpModel 'exact'):
   * its pricing rows are grown lazily, but every round lifts each output's
   * column over all n(n-1)/2 pairs (and the privacy repair visits them
   * once more): pairs x outputs per round, a multiply-compare each (~1e9/s).
   * 20 x 20 (3.2e7) and 30 x 30 (3.6e8) are admitted; 50 x 50 (7.8e9) is not.
   */
  maxLpLiftVisits: 2e9,

  /**
   * Custom (csv:FILE or inline) metric validation: the triangle check is
   * n^3 additions/comparisons, measured 4-6e8/s in the Float64Array loop
   * (a max/min-difference pre-pass was only ~1.3x faster, not kept). 8e9 =
   * 2000^3 admits every inline metric the protocol allows
   * (MAX_INLINE_DOMAIN_POINTS = 2000; ~15 s, announced with an estimate); a
   * 3000-point metric (2.7e10, ~60 s) is refused with the advice to give a
   * graph (a shortest-path metric needs no triangle check).
   */
  maxMetricValidationWork: 8e9,

  /**
   * Bytes of a domain file (graph:FILE, csv:FILE). The largest metric that
   * passes validation (2000 points) is ~80 MB of CSV with 20-digit
   * decimals; an edge list of the largest dense graph (11585 nodes) with a
   * few million edges fits too.
   */
  maxFileBytes: 128 * 2 ** 20,

  /**
   * Largest |loss| entry of a custom loss matrix. Expected losses sum
   * prior x channel x loss over up to ~1e8 entries: 1e150 keeps every such
   * sum (and its square) finite; the LP sees the loss rescaled to |l| <= 1.
   */
  maxLossMagnitude: 1e150,
} as const;
