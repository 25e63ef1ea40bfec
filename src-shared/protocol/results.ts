/**
 * Job results, one per request type (same `type` tag). Numbers that a theorem
 * cannot provide are null with a typed note saying why (./notes.ts), never a made-up value.
 */
import { z } from 'zod';
import { OPTIMAL_GRID_LOSS, domainEpsilonResultShape, matrixPayloadSchema } from './common';
import { caseStudyResultSchema } from './casestudy';
import { applyResultSchema, remapResultSchema } from './remap';
import { compareResultSchema } from './compare';
import { explorerResultSchema } from './explorer';
import { auditResultSchema } from './audit';
import { lpStopSchema, mechanismFactsSchema, recordedFactSchema } from './facts';
import { candidateNoteSchema, regularityNoteSchema, storedSweepNoteSchema, thresholdNoteSchema } from './notes';

const num = z.number();
const nullableNum = z.number().nullable();
/** A number that may be +Infinity (e.g. a ratio positive/0, SPEC §4). JSON output writes it as null. */
const extNum = z.union([z.number(), z.literal(Infinity)]);

/** Largest number of convergence points a result carries (evenly thinned, first and last kept). */
export const MAX_LP_HISTORY_POINTS = 200;

/**
 * One round of the optimal LP: objective of the best private mechanism, certified bound, relative gap, monotonic
 * fraction.
 */
const lpProgressSchema = z.object({
  round: z.int(),
  objective: num,
  bound: num,
  gap: num,
  elapsedMs: num,
  fraction: num,
});

/**
 * A cheap construction tried before the LP (with its optimal remap): expected loss (null when it does not apply, with
 * the reason) and time in seconds.
 */
const lpCandidateSchema = z.object({
  construction: z.string(),
  expectedLoss: nullableNum,
  time: num,
  /** Why it has no expected loss (a sentence in results kept by an older version, shown as recorded). */
  note: z.union([candidateNoteSchema, z.string()]).optional(),
});
export type LpCandidate = z.infer<typeof lpCandidateSchema>;

/**
 * What the optimal-mechanism LP solved and how far from the optimum it may be (lp/optimal/optimal-mechanism.ts
 * OptimalLpResult).
 */
const lpResultSchema = z.object({
  /** The privacy model solved: exact (all pairs), spanner (with delta) or edges (graph metrics). */
  model: z.enum(['exact', 'spanner', 'edges']),
  /** 'requested', or 'auto' with the reason of the choice. */
  modelChoice: z.enum(['requested', 'auto']),
  modelReason: z.string(),
  delta: num,
  method: z.enum(['full-model', 'constraint-generation', 'decomposition']),
  /** Expected loss of the returned (private) mechanism under the LP's loss. */
  objective: num,
  /** Certified lower bound on the optimum of the model solved. */
  lowerBound: num,
  /**
   * (objective - B) / objective, B the exact lower bound when there is one (gapBasis 'exact'), else the model's
   * (gapBasis 'model').
   */
  gap: num,
  /** Certified lower bound on the exact all-pairs optimum, or null when none was computed. */
  exactLowerBound: nullableNum,
  /** What `gap` is measured against (absent in results saved before it existed: the model's bound). */
  gapBasis: z.enum(['exact', 'model']).optional(),
  /**
   * The returned mechanism: 'lp' or the construction of a cheaper candidate (absent in results saved before candidates
   * existed).
   */
  chosen: z.string().optional(),
  /** The cheap constructions tried before the LP. */
  candidates: z.array(lpCandidateSchema).max(16).optional(),
  /** Expected loss of the LP's own channel (objective is the returned mechanism's). */
  lpObjective: nullableNum.optional(),
  rounds: z.int(),
  timeMs: num,
  stoppedBy: lpStopSchema,
  timeLimitReached: z.boolean(),
  /** Convergence, at most MAX_LP_HISTORY_POINTS points. */
  history: z.array(lpProgressSchema).max(MAX_LP_HISTORY_POINTS),
  /**
   * The coarser grid (2 x 2 blocks) whose optimal duals started the solve, or null (absent in results saved before it
   * existed).
   */
  coarseStart: z
    .object({
      rows: z.int().min(1),
      cols: z.int().min(1),
      cellSize: num,
      /** Coarser grids solved below it. */
      levels: z.int().min(0),
      objective: num,
      gap: num,
      stoppedBy: z.string(),
      timeMs: num,
    })
    .nullable()
    .optional(),
  /**
   * Queue workers that priced the decomposition's rounds (an LP run with a job queue; absent when priced on this
   * machine).
   */
  pricingWorkers: z.int().min(0).optional(),
  /**
   * The relaxation that bounded a large exact model: the spanner's pairs (dilation delta) at their true eps*d, whose
   * certified bound (loss units) is below the best possible; absent when none was solved.
   */
  relaxation: z
    .object({
      delta: num,
      bound: num,
      rounds: z.int().min(0),
      timeMs: num,
      stoppedBy: lpStopSchema,
    })
    .optional(),
});
export type LpResult = z.infer<typeof lpResultSchema>;
/**
 * What qualifies a mechanism result's figures, one typed note each; the words
 * are written in one place (src-shared/charts/mechanism-notes.ts) for the CLI and the app.
 */
const mechanismNoteSchema = z.discriminatedUnion('kind', [
  /** The expected loss is not a finite double (infinite distances, or sums that overflow): reported as null. */
  z.object({ kind: z.literal('loss-not-finite') }),
  /** The effective eps was not computed: the privacy check would cost more than the job allows (its message). */
  z.object({ kind: z.literal('effective-eps-not-computed'), reason: z.string() }),
  /** Not private as stored: entries below the smallest double are 0 next to positive ones (infinite privacy loss). */
  z.object({ kind: z.literal('stored-underflow'), guaranteed: z.number() }),
  /** Not private as stored: the stored doubles reach a larger effective eps than the exact values' guarantee. */
  z.object({ kind: z.literal('stored-above'), effective: z.number(), guaranteed: z.number() }),
]);
export type MechanismNote = z.infer<typeof mechanismNoteSchema>;

/** At most `max` points of a history, evenly spaced, the first and the last kept. */
export function thinHistory<T>(h: readonly T[], max = MAX_LP_HISTORY_POINTS): T[] {
  if (h.length <= max) return h.slice();
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(h[Math.round((i * (h.length - 1)) / (max - 1))]!);
  return out;
}

export const mechanismResultSchema = z.object({
  type: z.literal('mechanism'),
  kind: z.string(),
  domain: z.string(),
  epsilon: num,
  /** false only for a tight-constraints mechanism whose z has a negative entry (SPEC §2). */
  exists: z.boolean(),
  rows: z.int(),
  cols: z.int(),
  /** Binary-gain utility with an optimal remap under the prior (uniform by default), SPEC §3. */
  utility: nullableNum,
  /** Expected loss under an optimal remap, when a loss was given (or defaultLoss says which one was used). */
  expectedLoss: nullableNum.optional(),
  /**
   * The loss used when the request gave none: an optimal LP on a grid minimises the expected distance
   * (a location is guessed), so its expectedLoss is in the grid's distance units.
   */
  defaultLoss: z.literal(OPTIMAL_GRID_LOSS).optional(),
  /** Min-entropy leakage log2(V[pi>C]/V(pi)). */
  leakage: nullableNum.optional(),
  /** Largest ln-ratio per unit distance actually achieved (SPEC §4); Infinity when some positive entry faces a zero. */
  effectiveEpsilon: extNum.nullable(),
  /** The construction's honest guarantee: guaranteedEpsilon * d-private. */
  guaranteedEpsilon: nullableNum,
  guarantee: z.string(),
  /** Tight-constraints mechanism that does not exist: min z and where. */
  minZ: num.optional(),
  minZAt: z.string().optional(),
  /** What the construction knows about the mechanism it built (src-shared/protocol/facts.ts). */
  facts: mechanismFactsSchema,
  /** Values of a result kept by an earlier version that have no place in `facts`, as they were recorded. */
  factsAsRecorded: z.array(recordedFactSchema).optional(),
  /** Optimal mechanisms: the LP's model, method, certified bound and gap (typed). */
  lp: lpResultSchema.optional(),
  /** Inline matrix when rows*cols <= the inline limit. */
  matrix: matrixPayloadSchema.optional(),
  /** Path the full channel was streamed to, when asked. */
  csvPath: z.string().optional(),
  /** The host keeps the channel under this id (keepChannel): measure, check and rows requests name it. */
  channelRef: z.string().optional(),
  /** What qualifies the figures (absent when nothing does). */
  notes: z.array(mechanismNoteSchema).optional(),
  /** Results kept by an older version carry their notes as one sentence, shown as recorded. */
  note: z.string().optional(),
  /** The mechanism was remapped (rows/cols/matrix/csv are then C . R); losses before and after. */
  remap: remapResultSchema.optional(),
});

const measureResultSchema = z.object({
  type: z.literal('measure'),
  rows: z.int(),
  cols: z.int(),
  vulnerability: num,
  posteriorVulnerability: num,
  leakage: num,
  utility: num,
  multiplicativeCapacity: num,
  additiveCapacity: num,
  /** Min-capacity log2(sum_y max_x C[x][y]). */
  minCapacity: num,
  expectedLoss: nullableNum.optional(),
  /** Optimal remap w(y) as labels of guesses, one per output column (small channels). */
  remap: z.array(z.string()).optional(),
  /** Expected distance error sum_x pi_x sum_y C[x][y] d(x,y), when a domain was given and outputs are secrets. */
  qualityLoss: nullableNum.optional(),
  /** Effective eps*d (SPEC §4) when a domain was given. */
  effectiveEpsilon: extNum.nullable().optional(),
});

const violationSchema = z.object({ x: z.string(), xp: z.string(), y: z.string(), ratio: extNum });
export const checkResultSchema = z.object({
  type: z.literal('check'),
  epsilon: num,
  effectiveEpsilon: extNum,
  private: z.boolean(),
  violations: z.array(violationSchema),
  pairsChecked: num.optional(),
});

const capacityResultSchema = z.object({
  ...domainEpsilonResultShape('capacity'),
  multiplicative: num,
  additive: num,
  /** Closed forms where SPEC §6 has one (line, clique), for comparison. */
  closedForm: z.object({ multiplicative: nullableNum, additive: nullableNum }).optional(),
  rows: z.int().optional(),
  matrix: matrixPayloadSchema.optional(),
  csvPath: z.string().optional(),
});

const regularResultSchema = z.object({
  ...domainEpsilonResultShape('regular'),
  regular: z.boolean(),
  /** sum(mu) when regular, else null (SPEC §5: the bound does not apply). */
  utilityBound: nullableNum,
  /** log2(sum(mu) / max pi) when regular, else null. */
  leakageBound: nullableNum,
  mu: z.array(num).optional(),
  /** How regularity was decided: the smallest mu and where, or an LP when Phi is singular (note-words.ts words it). */
  regularity: regularityNoteSchema.optional(),
  /** Results kept by an older version carry their note as one sentence, shown as recorded. */
  note: z.string().optional(),
  /**
   * When not regular: where the prior becomes regular, searched by doubling eps (up to 64x) then bisection to 1%:
   * regular at `epsilon`, not at `below` (null: not regular up to 64x the asked eps, or the domain is too large to
   * search). Only points checked are claimed.
   */
  regularFrom: z.object({ epsilon: num, below: num }).nullable().optional(),
});

export const thresholdResultSchema = z.object({
  type: z.literal('threshold'),
  domain: z.string(),
  /** Smallest eps on the grid for which a tight-constraints mechanism exists; null if none in range. */
  epsilon: nullableNum,
  from: num,
  to: num,
  step: num,
  /** What qualifies the answer (none in range, or found at the lower end already). */
  notes: z.array(thresholdNoteSchema).optional(),
  /** Results kept by an older version carry their note as one sentence, shown as recorded. */
  note: z.string().optional(),
});

const verticesResultSchema = z.object({
  ...domainEpsilonResultShape('vertices'),
  vertices: z.int(),
  kernels: z.int().nullable(),
  /** Vertex coordinates (each a distribution over the n secrets), when few. */
  list: z.array(z.array(num)).optional(),
});

const sweepSeriesSchema = z.object({
  kind: z.string(),
  utility: z.array(nullableNum),
  leakage: z.array(nullableNum),
  expectedLoss: z.array(nullableNum).optional(),
  /**
   * Per eps, why a point is missing (e.g. tight mechanism does not exist); a sentence in results kept by an older
   * version.
   */
  notes: z.array(storedSweepNoteSchema.nullable()).optional(),
});
export const sweepResultSchema = z.object({
  type: z.literal('sweep'),
  domain: z.string(),
  epsilons: z.array(num),
  series: z.array(sweepSeriesSchema),
  /** SPEC §5 bounds per eps (null where the prior is not regular). */
  bounds: z.object({
    utility: z.array(nullableNum),
    leakage: z.array(nullableNum),
    /**
     * Per eps, why no bound is given (the prior is not regular there), null where it is; a sentence in results kept by
     * an older version.
     */
    notes: z.array(storedSweepNoteSchema.nullable()).optional(),
  }),
});

/**
 * Part of a channel (a `rows` job): the requested rows over columns
 * [colFrom, colTo), or block means: `means` is blocksY x blocksX row-major,
 * block (by, bx) covering rows rowEdges[by]..rowEdges[by+1]-1 and columns
 * colEdges[bx]..colEdges[bx+1]-1.
 */
const rowsResultSchema = z.object({
  type: z.literal('rows'),
  rows: z.int(),
  cols: z.int(),
  indices: z.array(z.int()).optional(),
  colFrom: z.int().optional(),
  colTo: z.int().optional(),
  data: z.array(z.array(num)).optional(),
  rowLabels: z.array(z.string()).optional(),
  colLabels: z.array(z.string()).optional(),
  blocks: z
    .object({
      blocksY: z.int(),
      blocksX: z.int(),
      rowEdges: z.array(z.int()),
      colEdges: z.array(z.int()),
      means: z.array(num),
      vmax: num,
      /** Labels of each block's first and last row / column. */
      rowFirst: z.array(z.string()),
      rowLast: z.array(z.string()),
      colFirst: z.array(z.string()),
      colLast: z.array(z.string()),
    })
    .optional(),
});

const projectItemResultSchema = z.object({
  id: z.string(),
  /** 'mechanism' items carry a mechanism result; analyses carry their own result type. */
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
const runProjectResultSchema = z.object({
  type: z.literal('run-project'),
  name: z.string(),
  mechanisms: z.array(projectItemResultSchema),
  analyses: z.array(projectItemResultSchema),
});

export const jobResultSchema = z.discriminatedUnion('type', [
  mechanismResultSchema,
  measureResultSchema,
  checkResultSchema,
  capacityResultSchema,
  regularResultSchema,
  thresholdResultSchema,
  verticesResultSchema,
  sweepResultSchema,
  runProjectResultSchema,
  caseStudyResultSchema,
  applyResultSchema,
  compareResultSchema,
  rowsResultSchema,
  explorerResultSchema,
  auditResultSchema,
]);

export type MechanismResult = z.infer<typeof mechanismResultSchema>;
export type MeasureResult = z.infer<typeof measureResultSchema>;
export type CheckResult = z.infer<typeof checkResultSchema>;
export type CapacityResult = z.infer<typeof capacityResultSchema>;
export type RegularResult = z.infer<typeof regularResultSchema>;
export type ThresholdResult = z.infer<typeof thresholdResultSchema>;
export type VerticesResult = z.infer<typeof verticesResultSchema>;
export type SweepResult = z.infer<typeof sweepResultSchema>;
export type RunProjectResult = z.infer<typeof runProjectResultSchema>;
export type RowsResult = z.infer<typeof rowsResultSchema>;
export type ProjectItemResult = z.infer<typeof projectItemResultSchema>;
export type JobResult = z.infer<typeof jobResultSchema>;
/** The result type that answers a given request type. */
export type ResultFor<T extends JobResult['type']> = Extract<JobResult, { type: T }>;
