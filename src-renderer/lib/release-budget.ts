/**
 * The Apply view's privacy budget: the population a release spends on (a name, or the data set by its SHA-256),
 * what it has spent, its budget, and the release appended to the project's log (src-shared/protocol/releases.ts).
 */
import {
  budgetState,
  populationOfHash,
  type BudgetState,
  type PrivacyBudget,
  type ProjectInput,
  type Release,
  type ReleaseFile,
} from '../../src-shared/protocol/index';

/** SHA-256 (hex) of text as UTF-8, as the host writes the secrets it releases; null where Web Crypto is unavailable. */
export async function sha256OfText(text: string): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const d = await subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The population a release spends on: the name typed, else the data set by its hash (null: neither known yet). */
export function populationFor(name: string, dataHash: string | null): string | null {
  const n = name.trim();
  if (n !== '') return n.slice(0, 200);
  return dataHash ? populationOfHash(dataHash) : null;
}

/** The budget of the project before a release of eps on a population. */
export function budgetBefore(project: ProjectInput, population: string, epsilon: number): BudgetState {
  return budgetState(project.releases, project.privacyBudget, population, epsilon);
}

/** A budget field's text as a number, or undefined (blank or not a positive number: no budget). */
export function budgetValue(text: string): number | undefined {
  const v = Number(text);
  return text.trim() !== '' && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** The project's budget with one entry set (or cleared: undefined); null when it is left empty. */
export function withBudget(
  b: PrivacyBudget | undefined,
  population: string | null,
  value: number | undefined,
): PrivacyBudget | undefined {
  const next: PrivacyBudget = {
    ...(b?.all !== undefined ? { all: b.all } : {}),
    ...(b?.populations ? { populations: { ...b.populations } } : {}),
  };
  if (population === null) {
    if (value === undefined) delete next.all;
    else next.all = value;
  } else {
    const pops = { ...next.populations };
    if (value === undefined) delete pops[population];
    else pops[population] = value;
    if (Object.keys(pops).length) next.populations = pops;
    else delete next.populations;
  }
  return next.all === undefined && next.populations === undefined ? undefined : next;
}

/** The release as the project's log keeps it. */
export function releaseRecord(
  mechanism: string,
  epsilon: number,
  population: string,
  files: { input: ReleaseFile; output: ReleaseFile },
  rows: number,
  forRelease: boolean,
): Release {
  return {
    mechanism,
    epsilon,
    population,
    ...files,
    rows,
    randomness: forRelease ? 'crypto' : 'seeded',
    date: new Date().toISOString(),
  };
}
