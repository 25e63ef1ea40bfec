/**
 * The optimal LP from the command line: `mechanism --kind optimal
 * --lp-model exact|spanner [--time-limit S] [--target-gap G]` as a
 * subprocess (bin/mechstudio.js, the real worker pool). Asserts the typed LP
 * record (model as asked, certified bound below the objective, small gap,
 * exact optimum <= spanner's), that the exported channel passes `check`,
 * that a time-limited run returns a consistent record and a private channel,
 * and that bad option values exit 2 with one line.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-run';
import type { LpResult } from '../../src-shared/protocol/results';
import { argv } from '../unit/support/argv';

const cli = (args: string[]) => runCli(args);

/** A lumpy prior on n points (no symmetry). */
function prior(n: number): string {
  const w = Array.from({ length: n }, (_, i) => 1 + ((i * 5) % 7));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => String(x / s)).join(',');
}

/** The --json `lp` object: the protocol's LP record without its convergence history. */
type LpJson = Omit<LpResult, 'history'>;

const LP_KEYS = [
  'model',
  'modelChoice',
  'modelReason',
  'delta',
  'method',
  'objective',
  'lowerBound',
  'gap',
  'exactLowerBound',
  'gapBasis',
  'chosen',
  'candidates',
  'lpObjective',
  'rounds',
  'timeMs',
  'stoppedBy',
  'timeLimitReached',
  'coarseStart',
];

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mech-cli-lp-'));
});

function consistent(lp: LpJson): void {
  expect(Object.keys(lp)).toEqual(LP_KEYS);
  expect(lp.method).toBe('decomposition');
  expect(lp.gap).toBeGreaterThanOrEqual(0);
  expect(lp.gap).toBeLessThanOrEqual(1);
  expect(lp.lowerBound).toBeLessThanOrEqual(lp.objective + 1e-12);
  // gap is (objective - B) / objective, B the exact lower bound when there is one
  const basis = lp.exactLowerBound ?? lp.lowerBound;
  expect(lp.gapBasis).toBe(lp.exactLowerBound !== null ? 'exact' : 'model');
  expect(Math.abs(lp.gap - Math.max(0, (lp.objective - basis) / lp.objective))).toBeLessThan(1e-9);
  // never worse than a cheap construction: the returned loss is at most every candidate's and the LP's own
  for (const c of lp.candidates ?? [])
    if (c.expectedLoss !== null) expect(lp.objective).toBeLessThanOrEqual(c.expectedLoss);
  expect(lp.objective).toBeLessThanOrEqual(lp.lpObjective!);
  expect(lp.chosen === 'lp').toBe(lp.objective === lp.lpObjective);
  // a time limit (or stop) may come before the first round ends on a loaded machine: the starting channel, gap 1
  expect(lp.rounds).toBeGreaterThanOrEqual(lp.stoppedBy === 'time-limit' || lp.stoppedBy === 'stopped' ? 0 : 1);
  if (lp.rounds === 0) expect(lp.gap).toBe(1);
  expect(lp.timeLimitReached).toBe(lp.stoppedBy === 'time-limit');
  // these grids (16 and 100 locations) are below the coarse start's 150-location threshold
  expect(lp.coarseStart).toBeNull();
}

describe('mechanism --kind optimal with an LP model', () => {
  it('exact and spanner on grid:4x4: typed record, certified bounds, exact <= spanner, channels pass check', async () => {
    const base = argv`mechanism --domain grid:4x4 --epsilon 1 --kind optimal --prior ${prior(16)}
      --loss dist --json`;
    const exactCsv = join(dir, 'exact.csv');
    const spannerCsv = join(dir, 'spanner.csv');
    const [ex, sp] = await Promise.all([
      cli(argv`${base} --lp-model exact --out ${exactCsv}`),
      cli(argv`${base} --lp-model spanner --delta 1.1 --out ${spannerCsv}`),
    ]);
    expect(ex.stderr).toBe('');
    expect(ex.code).toBe(0);
    expect(sp.code).toBe(0);
    const e = JSON.parse(ex.stdout) as Record<string, unknown> & { lp: LpJson; expectedLoss: number };
    const s = JSON.parse(sp.stdout) as Record<string, unknown> & { lp: LpJson; expectedLoss: number };
    for (const o of [e, s]) {
      consistent(o.lp);
      expect(o.lp.modelChoice).toBe('requested');
      // each model solved to its own optimum (the spanner's gap to the best possible is larger: a restriction)
      expect((o.lp.objective - o.lp.lowerBound) / o.lp.objective).toBeLessThan(1e-5);
      expect(o.lp.gapBasis).toBe('exact');
      expect(['optimal', 'target-gap']).toContain(o.lp.stoppedBy);
      // the flat keys of the issue mirror the record
      expect([o.lpModel, o.lpMethod, o.lowerBound, o.gap, o.exactLowerBound]).toEqual([
        o.lp.model,
        o.lp.method,
        o.lp.lowerBound,
        o.lp.gap,
        o.lp.exactLowerBound,
      ]);
      // the expected loss with the optimal remap is at most the LP's (identity remap) objective
      expect(o.expectedLoss).toBeLessThanOrEqual(o.lp.objective + 1e-9);
    }
    expect(e.lp.model).toBe('exact');
    expect(e.lp.delta).toBe(1);
    expect(s.lp.model).toBe('spanner');
    expect(s.lp.delta).toBe(1.1);
    // the exact model's optimum is below the spanner's (the spanner is a restriction)
    expect(e.lp.objective).toBeLessThanOrEqual(s.lp.objective + 1e-9);
    // exact: its bound bounds the exact optimum; spanner: a valid (not tight) bound on the exact optimum
    expect(e.lp.exactLowerBound).toBe(e.lp.lowerBound);
    expect(s.lp.exactLowerBound).not.toBeNull();
    expect(s.lp.exactLowerBound!).toBeLessThanOrEqual(e.lp.objective + 1e-9);
    const checks = await Promise.all(
      [exactCsv, spannerCsv].map((f) => cli(argv`check --channel ${f} --domain grid:4x4 --epsilon 1 --json`)),
    );
    for (const c of checks) {
      expect(c.code).toBe(0);
      expect((JSON.parse(c.stdout) as { private: boolean }).private).toBe(true);
    }
  }, 60_000);

  it('without --loss an optimal LP on a grid minimises the expected distance (and says so); elsewhere binary gain', async () => {
    const grid = argv`mechanism --domain grid:3x3 --epsilon 1 --kind optimal --prior ${prior(9)} --json`;
    const line = argv`mechanism --domain line:5 --epsilon 1 --kind optimal --prior ${prior(5)} --json`;
    const [byDefault, withDist, withBin, onLine, readable] = await Promise.all([
      cli(grid),
      cli([...grid, '--loss', 'dist']),
      cli([...grid, '--loss', 'bin']),
      cli(line),
      cli(grid.filter((a) => a !== '--json')),
    ]);
    for (const r of [byDefault, withDist, withBin, onLine, readable]) expect(r.code).toBe(0);
    type Out = { lp: LpJson; expectedLoss?: number; loss?: string; utility: number };
    const d = JSON.parse(byDefault.stdout) as Out;
    const dist = JSON.parse(withDist.stdout) as Out;
    const bin = JSON.parse(withBin.stdout) as Out;
    expect(d.loss).toBe('dist');
    expect(dist.loss).toBeUndefined();
    // the same LP as --loss dist: its optimum and the reported expected loss
    expect(d.lp.objective).toBeCloseTo(dist.lp.objective, 9);
    expect(d.expectedLoss!).toBeCloseTo(dist.expectedLoss!, 9);
    // and not the binary-gain LP (its objective is 1 - utility, a probability)
    expect(Math.abs(d.lp.objective - bin.lp.objective)).toBeGreaterThan(0.1);
    expect(readable.stdout).toMatch(
      /expected loss\s+[0-9.]+ \(dist: no --loss given, an optimal LP on a grid minimises the expected distance\)/,
    );
    // a line is not a grid: binary gain, as before, with no expected loss reported
    const l = JSON.parse(onLine.stdout) as Out;
    expect(l.loss).toBeUndefined();
    expect(l.expectedLoss).toBeUndefined();
    expect(l.lp.objective).toBeCloseTo(1 - l.utility, 6);
  }, 60_000);

  it('readable output names the model, method, bound and gap', async () => {
    const r = await cli(argv`mechanism --domain grid:3x3 --epsilon 1 --kind optimal --prior ${prior(9)} --loss dist
      --lp-model auto --quiet`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/LP model +exact \(all pairs\); chosen automatically: 81 variables/);
    expect(r.stdout).toMatch(/LP method +decomposition/);
    expect(r.stdout).toMatch(/lower bound +[0-9.]+ \(certified, exact model\)/);
    expect(r.stdout).toMatch(/gap +[0-9.e-]+%/);
    expect(r.stdout).not.toMatch(/stopped by the time limit/);
  }, 60_000);

  it('--time-limit 0.5 on grid:10x10 exact: exit 0, a consistent record, a channel that passes check', async () => {
    const csv = join(dir, 'limited.csv');
    const limited = argv`mechanism --domain grid:10x10 --epsilon 1 --kind optimal --prior ${prior(100)} --loss dist
      --lp-model exact --time-limit 0.5`;
    const r = await cli(argv`${limited} --out ${csv} --json`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const o = JSON.parse(r.stdout) as { lp: LpJson };
    consistent(o.lp);
    expect(o.lp.model).toBe('exact');
    expect(['time-limit', 'optimal', 'target-gap']).toContain(o.lp.stoppedBy);
    if (o.lp.stoppedBy !== 'time-limit') expect(o.lp.gap).toBeLessThan(1e-5);
    const c = await cli(argv`check --channel ${csv} --domain grid:10x10 --epsilon 1 --json`);
    expect(c.code).toBe(0);
    expect((JSON.parse(c.stdout) as { private: boolean }).private).toBe(true);
    // the readable form says it was stopped (same run, text output)
    if (o.lp.stoppedBy === 'time-limit') {
      const t = await cli([...limited, '--quiet']);
      expect(t.code).toBe(0);
      expect(t.stdout).toMatch(/stopped by the time limit: the best private mechanism found/);
    }
  }, 120_000);

  it('bad option values exit 2 with one line', async () => {
    const base = argv`mechanism --domain grid:4x4 --epsilon 1 --kind optimal`;
    const cases: [string[], RegExp][] = [
      [['--lp-model', 'foo'], /--lp-model must be one of exact, spanner, edges, auto, got 'foo'/],
      [['--time-limit', '-1'], /--time-limit must be a number of seconds > 0/],
      [['--target-gap', '2'], /--target-gap must be a relative gap > 0 and < 1/],
      [['--gap', '0'], /--gap must be a relative gap > 0 and < 1/],
      [['--delta', '0.5'], /--delta \(spanner dilation\) must be a number from 1 to 10/],
      [['--time-limit', 'abc'], /--time-limit must be a decimal number/],
    ];
    const runs = await Promise.all(cases.map(([a]) => cli([...base, ...a])));
    runs.forEach((r, i) => {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(cases[i]![1]);
    });
    const other = await cli(argv`mechanism --domain line:5 --epsilon 1 --kind tg --lp-model exact`);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/--lp-model applies only to --kind optimal/);
    // --queue moves an optimal LP's pricing; a closed form has none, and a bad URL is named before Redis is tried
    const [tg, bad] = await Promise.all([
      cli(argv`mechanism --domain line:5 --epsilon 1 --kind tg --queue redis://127.0.0.1:1/0`),
      cli(argv`mechanism --domain line:5 --epsilon 1 --kind optimal --queue http://x:1`),
    ]);
    expect([tg.code, bad.code]).toEqual([2, 2]);
    expect(tg.stderr).toBe(
      "mechstudio: --queue applies only to --kind optimal (its pricing rounds run on the queue's workers)\n",
    );
    expect(bad.stderr).toMatch(
      /^mechstudio: the queue URL must start with redis:\/\/ or rediss:\/\/, got http:\/\/\.\.\.; expected redis:\/\/HOST:PORT\[\/DB\]/,
    );
  }, 60_000);
});
