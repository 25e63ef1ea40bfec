/**
 * The release log of a project and its privacy budget (docs/data.md, "Releases and the privacy budget").
 *
 * Each release of a mechanism that is eps*d-private spends eps on its population (the people whose secrets were
 * released). Releases of the same population compose additively: k releases at eps_1..eps_k, each eps_i*d-private,
 * are jointly (eps_1 + ... + eps_k)*d-private, because the joint output's probability is the product of the
 * releases' (independent randomness), so its log ratio between two secrets is the sum of theirs, each at most
 * eps_i*d(x, x'). A budget bounds that sum per population.
 */
import { z } from 'zod';

/** A file of a release: its name (no directory), size in bytes and SHA-256 (64 hex digits). */
const releaseFileSchema = z.strictObject({
  name: z.string().min(1).max(4096),
  size: z.int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 is 64 lowercase hex digits'),
});
export type ReleaseFile = z.infer<typeof releaseFileSchema>;

/** A population: a name the user gives, or the input data set named by its file's SHA-256 ('sha256:HEX'). */
export const populationSchema = z.string().min(1).max(200);

/** One release: which mechanism at which eps, on whom, from which file to which, with which randomness, when. */
export const releaseSchema = z.strictObject({
  /** The project's mechanism id (app), or the CLI's construction / channel file. */
  mechanism: z.string().min(1).max(200),
  /** The eps the release spends (the mechanism is eps*d-private on its domain). */
  epsilon: z.number().positive().finite(),
  population: populationSchema,
  input: releaseFileSchema,
  output: releaseFileSchema,
  rows: z.int().min(0),
  /** 'crypto': node:crypto (for release); 'seeded': a reproducible test stream (counted all the same). */
  randomness: z.enum(['crypto', 'seeded']),
  /** ISO 8601 date and time of the release. */
  date: z.string().min(1).max(40),
});
export type Release = z.infer<typeof releaseSchema>;

/** The project's budget: one eps for every population (`all`) and/or one per named population (which wins). */
export const privacyBudgetSchema = z.strictObject({
  all: z.number().positive().finite().optional(),
  populations: z.record(populationSchema, z.number().positive().finite()).optional(),
});
export type PrivacyBudget = z.infer<typeof privacyBudgetSchema>;

/** The population of an input file known only by its content. */
export function populationOfHash(sha256: string): string {
  return `sha256:${sha256}`;
}

/** eps already spent on a population: the sum over its releases (additive composition). */
export function spentOn(releases: readonly Release[] | undefined, population: string): number {
  let s = 0;
  for (const r of releases ?? []) if (r.population === population) s += r.epsilon;
  return s;
}

/** The budget of a population (its own, else the one for all), or null when none is set. */
export function budgetOf(budget: PrivacyBudget | undefined, population: string): number | null {
  return budget?.populations?.[population] ?? budget?.all ?? null;
}

export interface BudgetState {
  population: string;
  spent: number;
  /** spent + this release's eps. */
  after: number;
  budget: number | null;
  /** Whether this release takes the population past its budget (never false when the sum exceeds it). */
  over: boolean;
}

/**
 * The budget before a release of eps on a population. `over` is decided on the plain float sum with no
 * tolerance: a sum that rounds above the budget is refused (the safe side).
 */
export function budgetState(
  releases: readonly Release[] | undefined,
  budget: PrivacyBudget | undefined,
  population: string,
  epsilon: number,
): BudgetState {
  const spent = spentOn(releases, population);
  const after = spent + epsilon;
  const b = budgetOf(budget, population);
  return { population, spent, after, budget: b, over: b !== null && after > b };
}

/** Shown as a population: a name as given, a hash shortened to its first 12 hex digits. */
export function populationText(population: string): string {
  return population.startsWith('sha256:') ? `the data set sha256:${population.slice(7, 19)}...` : `'${population}'`;
}

/** The one line a release past the budget is refused with (CLI and app). */
export function overBudgetText(s: BudgetState, eps: (x: number) => string): string {
  return `privacy budget exceeded for ${populationText(s.population)}: spent ${eps(s.spent)} + this release ${eps(s.after - s.spent)} = ${eps(s.after)} > budget ${eps(s.budget ?? 0)}`;
}
