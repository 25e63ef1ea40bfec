/**
 * A study as a privacy officer keeps it, for the report suites: a 4 x 4 grid with a prior from a CSV file beside the
 * project, three mechanisms computed by the engine (planar Laplace, tight constraints, the optimal LP) and kept with
 * their checks, one mechanism never computed, a comparison, an audit of a vendor's log, two releases of one
 * population under a budget. Every result is the engine's own (jobs run in-process), so the report's figures can
 * be asserted against them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  AuditResult,
  CheckResult,
  CompareResult,
  MechanismResult,
  ProjectInput,
} from '../../src-shared/protocol/index';
import { runJob } from '../unit/support/run-job';

export const GRID = 'grid:4x4:step=0.5';
export const EPS = Math.log(4);
/** A prior that is not uniform (the optimal LP then differs from the constructions). */
export const PRIOR = [4, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 4].map((w) => w / 24);

export interface Study {
  path: string;
  project: ProjectInput;
  mechanisms: Record<string, MechanismResult>;
  checks: Record<string, CheckResult>;
  compare: CompareResult;
  audit: AuditResult;
}

async function kept(
  kind: 'planar-laplace' | 'tight' | 'optimal',
): Promise<{ result: MechanismResult; check: CheckResult }> {
  const result = await runJob<'mechanism'>({
    type: 'mechanism',
    domain: GRID,
    epsilon: EPS,
    kind,
    prior: { kind: 'vector', values: PRIOR },
    loss: 'dist',
  });
  const check = await runJob<'check'>({
    type: 'check',
    channel: result.matrix!,
    domain: GRID,
    epsilon: Math.max(EPS, result.guaranteedEpsilon ?? EPS),
  });
  return { result, check };
}

/** A log of a vendor's randomised response on clique:3 (60% of reports true), exact frequencies. */
function vendorLog(per: number): string {
  const lines = ['secret,released'];
  for (let a = 0; a < 3; a++)
    for (let i = 0; i < per; i++) lines.push(`${a},${i % 10 < 6 ? a : i % 10 < 8 ? (a + 1) % 3 : (a + 2) % 3}`);
  return lines.join('\n') + '\n';
}

const sha = (c: string): string => c.repeat(64);

/** A release of mechanism `mechanism` at EPS to the population 'riders' from trips.csv (10 rows, crypto randomness). */
function release(mechanism: string, output: { name: string; size: number; sha256: string }, date: string) {
  return {
    mechanism,
    epsilon: EPS,
    population: 'riders',
    input: { name: 'trips.csv', size: 100, sha256: sha('b') },
    output,
    rows: 10,
    randomness: 'crypto' as const,
    date,
  };
}

/** Write the study into `dir` (study.json and its prior file) and return what was kept. */
export async function writeStudy(dir: string, name = 'study.json'): Promise<Study> {
  writeFileSync(join(dir, 'prior.csv'), PRIOR.map((p) => String(p)).join('\n') + '\n');
  const pl = await kept('planar-laplace');
  const tight = await kept('tight');
  const opt = await kept('optimal');
  const compare = await runJob<'compare'>({
    type: 'compare',
    domain: GRID,
    epsilon: EPS,
    prior: { kind: 'vector', values: PRIOR },
    mechanisms: [{ kind: 'planar-laplace' }, { kind: 'optimal', channel: opt.result.matrix!, label: 'the optimal LP' }],
  });
  const logText = vendorLog(2000);
  const audit = await runJob<'audit'>({
    type: 'audit',
    domain: 'clique:3',
    epsilon: 0.5,
    text: logText,
    name: 'vendor.csv',
  });
  const at = '2026-12-01T10:00:00.000Z';
  const keep = (k: { result: MechanismResult; check: CheckResult }) => ({
    hash: '0123456789abcdef',
    computedAt: at,
    result: k.result,
    check: k.check,
  });
  const project: ProjectInput = {
    version: 2,
    name: 'Downtown <b>study</b>',
    description: 'A study of the downtown grid & its two hot spots.',
    domains: [{ id: 'city', domain: GRID }],
    priors: [{ id: 'people', domain: 'city', prior: 'csv:prior.csv' }],
    mechanisms: [
      { id: 'pl', domain: 'city', kind: 'planar-laplace', epsilon: EPS, prior: 'people', loss: 'dist' },
      { id: 'tight', domain: 'city', kind: 'tight', epsilon: EPS, prior: 'people', loss: 'dist' },
      { id: 'best', domain: 'city', kind: 'optimal', epsilon: EPS, prior: 'people', loss: 'dist' },
      { id: 'later', domain: 'city', kind: 'exponential', epsilon: EPS },
    ],
    analyses: [],
    results: { pl: keep(pl), tight: keep(tight), best: keep(opt) },
    comparisons: [
      {
        id: 'versus',
        domain: 'city',
        prior: 'people',
        epsilon: EPS,
        epsilonText: 'ln 4',
        kinds: ['planar-laplace'],
        mechanisms: ['best'],
        result: compare,
        computedAt: at,
      },
    ],
    audits: [
      {
        id: 'vendor',
        domain: 'clique:3',
        epsilon: 0.5,
        epsilonText: '0.5',
        confidence: 0.99,
        file: { name: 'vendor.csv', size: logText.length, sha256: sha('a') },
        result: audit,
        computedAt: at,
      },
    ],
    releases: [
      release('pl', { name: 'out1.csv', size: 90, sha256: sha('c') }, '2026-12-01T11:00:00.000Z'),
      release('best', { name: 'out2.csv', size: 91, sha256: sha('d') }, '2026-12-01T12:00:00.000Z'),
    ],
    privacyBudget: { populations: { riders: 4 } },
  };
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(project, null, 2));
  return {
    path,
    project,
    mechanisms: { pl: pl.result, tight: tight.result, best: opt.result },
    checks: { pl: pl.check, tight: tight.check, best: opt.check },
    compare,
    audit,
  };
}
