/**
 * What a constructor knows about the mechanism it built (its construction
 * "facts"): one typed record per construction, discriminated by `kind`. The
 * engine attaches them to every mechanism (src-worker/mechanism/facts.ts uses
 * this very type), job results carry them as `facts`, and the app and the CLI
 * turn them into rows in words in one place (src-shared/charts/fact-rows.ts).
 *
 * Results kept in project files by earlier versions carry a flat `info`
 * record of display values instead: `factsFromInfo` maps it onto these types
 * when a project is read, and keeps what has no place here as rows "as
 * recorded" (`recordedFactSchema`), never dropping a value.
 */
import { z } from 'zod';

/**
 * A number of the facts. Non-finite values are numbers (a solver's Infinity);
 * read back from JSON they may come as their text (how earlier results wrote
 * them) or as null (how JSON writes them): null reads as NaN, a value not known.
 */
const factNumberSchema = z.union([
  z.number(),
  z.literal(Infinity),
  z.literal(-Infinity),
  z.nan(),
  z.enum(['Infinity', '-Infinity', 'NaN']).transform(Number),
  z.null().transform(() => NaN),
]);
const num = factNumberSchema;
const int = z.int();

/**
 * Why an LP solve ended: certified optimal, the requested gap reached, stalled, or a limit with the best mechanism so
 * far.
 */
export const lpStopSchema = z.enum([
  'optimal',
  'target-gap',
  'stalled',
  'time-limit',
  'stopped',
  'iteration-limit',
  'solver-memory',
]);
export type LpStop = z.output<typeof lpStopSchema>;

/**
 * What the solver of a private-channel LP did (sizes, times, repair); the LP's certified bound and gap are the result's
 * `lp`.
 */
const lpSolveFactsSchema = z.strictObject({
  delta: num,
  constraintMode: z.string(),
  constrainedPairs: int,
  constraints: int,
  variables: int,
  nonzeros: int,
  /** Expected loss of the returned (repaired) mechanism, in the loss's units. */
  objective: num,
  buildMs: num,
  solverMs: num,
  iterations: int,
  symmetries: int,
  reducedVariables: int,
  reducedConstraints: int,
  maxConstraintViolation: num,
  /** The solver's own objective (before the repair), in the loss's units. */
  lpObjective: num,
  repairMass: num,
  cappedPairs: int,
  generation: z
    .strictObject({ rounds: int, privacyRows: int, fullPrivacyRows: int, checkMs: num, coldRetries: int })
    .optional(),
  decomposition: z
    .strictObject({
      rounds: int,
      columns: int,
      pruned: int,
      pricingColdRetries: int,
      pricingFailures: int,
      plateauColumns: int,
      exactBoundMs: num,
      relativeGap: num,
      pricingRows: int,
      masterMs: num,
      pricingMs: num,
    })
    .optional(),
  /** 'optimal' unless a limit (time, stop, iterations, solver memory) ended the solve early. */
  status: lpStopSchema,
});

/** The combinators' facts, by which combinator. */
const combinatorFactsSchema = z.discriminatedUnion('combinator', [
  z.strictObject({ kind: z.literal('combinator'), combinator: z.literal('post-process'), outputs: int }),
  z.strictObject({
    kind: z.literal('combinator'),
    combinator: z.literal('cascade'),
    first: z.string(),
    second: z.string(),
  }),
  z.strictObject({ kind: z.literal('combinator'), combinator: z.literal('restrict'), kept: int, of: int }),
  z.strictObject({
    kind: z.literal('combinator'),
    combinator: z.literal('choice'),
    p: num,
    first: z.string(),
    second: z.string(),
  }),
]);

/** The facts of every construction, by `kind`. */
export const mechanismFactsSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('truncated-geometric'), alpha: num, k: int }),
  z.strictObject({ kind: z.literal('randomised-response'), diagonal: num, offDiagonal: num, minDistance: num }),
  /** Exponential mechanism (kernel rate eps/2) and row-normalised Laplace (kernel rate eps, guaranteed only 2 eps). */
  z.strictObject({ kind: z.literal('exponential'), kernelRate: num }),
  z.strictObject({ kind: z.literal('laplace'), kernelRate: num }),
  z.strictObject({
    kind: z.literal('planar-laplace'),
    metric: z.string(),
    density: z.string(),
    epsPerCell: num,
    integrations: int,
    tableBuildMs: num,
    method: z.string(),
  }),
  /** Tight constraints with dense weights. */
  z.strictObject({ kind: z.literal('tight'), solver: z.string(), solveMs: num, minZ: num }),
  /** Tight constraints on a structured domain, rows generated from z (no full matrix held). */
  z.strictObject({
    kind: z.literal('tight-implicit'),
    solver: z.string(),
    iterations: int,
    relResidual: num,
    solveMs: num,
    setupMs: num,
    minZ: num,
    argMinZ: z.string(),
    clampedZ: int,
    maxRowSumError: num,
    fellBack: z.string().optional(),
  }),
  z.strictObject({ kind: z.literal('ball-size'), z: num, normaliser: num }),
  /** Single-orbit symmetric mechanism; on a line, closed into a ring of `closedIntoRing` points (then not optimal). */
  z.strictObject({
    kind: z.literal('symmetric'),
    a: num,
    c: num,
    diameter: num,
    evenRing: z.boolean(),
    closedIntoRing: int.optional(),
  }),
  z.strictObject({ kind: z.literal('optimal'), solve: lpSolveFactsSchema }),
  z.strictObject({
    kind: z.literal('capacity'),
    capacity: z.enum(['multiplicative', 'additive']),
    value: num,
    trace: num,
    constraintMode: z.string(),
    constraints: int,
    variables: int,
    solverMs: num,
    maxConstraintViolation: num,
  }),
  z.strictObject({ kind: z.literal('kernel'), vertices: z.array(int).readonly() }),
  combinatorFactsSchema,
  /** Nothing known beyond the channel (e.g. a mechanism that does not exist). */
  z.strictObject({ kind: z.literal('none') }),
]);
export type MechanismFacts = z.output<typeof mechanismFactsSchema>;
export type LpSolveFacts = z.output<typeof lpSolveFactsSchema>;
/** A value from an earlier result's flat `info` that has no place in the typed facts: shown as it was recorded. */
export const recordedFactSchema = z.strictObject({
  name: z.string().max(200),
  value: z.union([z.string(), z.boolean(), num]),
});
export type RecordedFact = z.output<typeof recordedFactSchema>;
