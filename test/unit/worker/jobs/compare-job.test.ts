/**
 * The compare job. Every figure of every row is recomputed
 * here by brute force from the channel matrix (taken from a mechanism job
 * with the same spec) and the grid's Euclidean distances in km: expected
 * distance, the optimal remap for the distance loss by scanning all guesses,
 * P(true cell), min-entropy leakage, the effective eps over all pairs, and
 * the percentage against planar Laplace. Also: validation, the CSV and the
 * table text carry units, and mechanisms computed elsewhere (a project's
 * construction, a kept channel handed on as a matrix) give the figures of
 * the same mechanism built by the comparison.
 */
import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { silentContext } from '../../../../src-worker/jobs/context';
import { runJobRequest } from '../../../../src-worker/jobs/run';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import { effectiveEpsilon } from '../../support/metrics-for-tests';
import { mechError } from '../../support/mech-error';
import { runJob, validRequest } from '../../support/run-job';
import type { CompareResult, CompareRow } from '../../../../src-shared/protocol/compare';
import { compareCsv, compareTableText, compareChart } from '../../../../src-shared/charts/compare-report';
import { compareRowNotes, sig3 } from '../../../../src-shared/charts/compare-words';

const R = 4;
const C = 5;
const STEP = 0.5;
const N = R * C;
const DOMAIN = `grid:${R}x${C}:step=${STEP}`;
const EPS = 1.2;

/** Two-centre prior: mass around cells (0,0) and (3,4), a floor elsewhere. */
function twoCentre(): number[] {
  const w: number[] = [];
  for (let r = 0; r < R; r++)
    for (let c = 0; c < C; c++) {
      const d1 = Math.hypot(r, c);
      const d2 = Math.hypot(r - 3, c - 4);
      w.push(Math.exp(-d1) + 0.7 * Math.exp(-d2) + 0.01);
    }
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}
const PRIOR = twoCentre();

function dist(a: number, b: number): number {
  return STEP * Math.hypot(Math.floor(a / C) - Math.floor(b / C), (a % C) - (b % C));
}

const WITH_PRIOR = { prior: { kind: 'vector', values: PRIOR } };

/** A compare request on the test grid at EPS; fields add to or override these. */
function compareJob(fields: Record<string, unknown>): Record<string, unknown> {
  return { type: 'compare', domain: DOMAIN, epsilon: EPS, ...fields };
}

async function channelOf(kind: string, remap: boolean): Promise<number[][]> {
  const r = await runJob<'mechanism'>({
    type: 'mechanism',
    domain: DOMAIN,
    epsilon: EPS,
    kind,
    ...WITH_PRIOR,
    loss: 'dist',
    ...(remap ? { remap: true } : {}),
  });
  const m = r.matrix!;
  const out: number[][] = [];
  for (let x = 0; x < m.rows; x++) out.push(m.data.slice(x * m.cols, (x + 1) * m.cols));
  return out;
}

interface Brute {
  ed: number;
  edRemapped: number;
  pTrue: number;
  leakage: number;
  effEps: number;
}

function brute(ch: number[][]): Brute {
  let ed = 0;
  let pTrue = 0;
  for (let x = 0; x < N; x++)
    for (let y = 0; y < N; y++) {
      ed += PRIOR[x]! * ch[x]![y]! * dist(x, y);
      if (x === y) pTrue += PRIOR[x]! * ch[x]![y]!;
    }
  // optimal remap: for each output, the guess minimising the posterior expected distance
  let edRemapped = 0;
  for (let y = 0; y < N; y++) {
    let best = Infinity;
    for (let w = 0; w < N; w++) {
      let s = 0;
      for (let x = 0; x < N; x++) s += PRIOR[x]! * ch[x]![y]! * dist(w, x);
      best = Math.min(best, s);
    }
    edRemapped += best;
  }
  let post = 0;
  for (let y = 0; y < N; y++) {
    let mx = 0;
    for (let x = 0; x < N; x++) mx = Math.max(mx, PRIOR[x]! * ch[x]![y]!);
    post += mx;
  }
  const leakage = Math.log2(post / Math.max(...PRIOR));
  return { ed, edRemapped, pTrue, leakage, effEps: effectiveEpsilon(ch, dist) };
}

const SPECS = [
  { kind: 'planar-laplace', remap: false },
  { kind: 'planar-laplace', remap: true },
  { kind: 'exponential', remap: false },
  { kind: 'optimal', remap: false },
] as const;

const want3 = (b: Brute[]): number => b[3]!.ed;

async function compare(extra: Record<string, unknown> = {}): Promise<CompareResult> {
  return runJob<'compare'>(
    compareJob({
      ...WITH_PRIOR,
      loss: 'dist',
      mechanisms: SPECS.map((s) => ({ kind: s.kind, ...(s.remap ? { remap: true } : {}) })),
      ...extra,
    }),
  );
}

describe('compare job', () => {
  it('every figure of every row equals its brute-force recomputation from the channel', async () => {
    const r = await compare();
    expect(r.type).toBe('compare');
    expect(r.unit).toBe('km');
    expect(r.grid).toEqual({ rows: R, cols: C, step: STEP });
    expect(r.rows).toHaveLength(SPECS.length);
    const b: Brute[] = [];
    for (const s of SPECS) b.push(brute(await channelOf(s.kind, s.remap)));
    const base = b[0]!.ed; // planar Laplace at face value
    for (let k = 0; k < SPECS.length; k++) {
      const row = r.rows[k]!;
      const want = b[k]!;
      expect(row.exists).toBe(true);
      expect(row.remap).toBe(SPECS[k]!.remap);
      expect(row.expectedDistance!).toBeCloseTo(want.ed, 9);
      expect(row.expectedDistanceRemapped!).toBeCloseTo(want.edRemapped, 9);
      expect(row.pTrue!).toBeCloseTo(want.pTrue, 12);
      expect(row.leakageBits!).toBeCloseTo(want.leakage, 9);
      expect(row.effectiveEpsilon!).toBeCloseTo(want.effEps, 6);
      expect(row.effectiveEpsilon!).toBeLessThanOrEqual(EPS * (1 + 1e-9));
      expect(row.betterThanPlanarLaplacePct!).toBeCloseTo((100 * (base - want.ed)) / base, 9);
      expect(row.focusRow).toHaveLength(N);
    }
    expect(r.baseline!).toBeCloseTo(base, 9);
    // the optimal row carries its LP record: for the distance loss its objective is the row's expected distance
    const opt = r.rows[3]!;
    expect(opt.lp).toBeDefined();
    expect(opt.lp!.objective).toBeCloseTo(want3(b), 6);
    expect(opt.lp!.lowerBound!).toBeLessThanOrEqual(opt.lp!.objective * (1 + 1e-9));
    // its LP is its record (no prose note): minimised the distance loss; said in words, the model in the details
    expect(opt.lp!.loss).toBe('dist');
    expect(opt.notes).toBeUndefined();
    const lpWords = compareRowNotes(opt, 'km')[0]!;
    expect(lpWords.text).toMatch(
      /^optimised for distance between guess and truth: expected loss [\d.]+, (the best possible|at most [\d.]+% above the best possible)$/,
    );
    expect(lpWords.details).toMatch(/^LP \(\w+ model\): objective [\d.]+, certified lower bound [\d.]+/);
    expect(r.rows[0]!.lp).toBeUndefined();
    expect(r.rows[0]!.betterThanPlanarLaplacePct).toBe(0);
    // the remap can only help, and the optimal mechanism beats planar Laplace for this prior and loss
    expect(r.rows[1]!.expectedDistance!).toBeLessThan(r.rows[0]!.expectedDistance! + 1e-12);
    expect(r.rows[1]!.betterThanPlanarLaplacePct!).toBeGreaterThan(0);
    expect(r.rows[3]!.betterThanPlanarLaplacePct!).toBeGreaterThan(r.rows[1]!.betterThanPlanarLaplacePct! - 1e-6);
    // the prior and the focus (most likely cell by default) for the map
    expect(r.prior).toHaveLength(N);
    expect(r.focus).toBe(0);
    const row0 = await channelOf('planar-laplace', false);
    r.rows[0]!.focusRow!.forEach((v, j) => expect(v).toBeCloseTo(row0[0]![j]!, 15));
  }, 60_000);

  it('computes the planar Laplace baseline itself when no plain planar Laplace row is listed', async () => {
    const r = await runJob<'compare'>(compareJob({ ...WITH_PRIOR, mechanisms: [{ kind: 'exponential' }], focus: 7 }));
    const pl = brute(await channelOf('planar-laplace', false)).ed;
    const ex = brute(await channelOf('exponential', false)).ed;
    expect(r.baseline!).toBeCloseTo(pl, 9);
    expect(r.rows[0]!.betterThanPlanarLaplacePct!).toBeCloseTo((100 * (pl - ex)) / pl, 9);
    expect(r.focus).toBe(7);
    expect(r.focusLabel).toBeTruthy();
  });

  it('renders units in the table, the CSV and the chart', async () => {
    const r = await compare();
    const t = compareTableText(r);
    expect(t.header).toContain('expected distance (km)');
    expect(t.header).toContain('effective ε per km');
    expect(t.rows[0]![1]).toMatch(/^\d+(\.\d+)? km$/);
    expect(t.rows[0]![6]).toBe('same as planar Laplace');
    expect(t.rows[1]![6]).toMatch(/^\d+\.\d% better$/);
    const csv = compareCsv(r).trim().split('\n');
    expect(csv[1]).toBe(
      'mechanism,kind,remap,exists,expected_distance_km,expected_distance_remapped_km,p_true_cell,leakage_bits,effective_eps_per_km,guaranteed_eps_per_km,better_than_planar_laplace_pct,note',
    );
    expect(csv).toHaveLength(2 + SPECS.length);
    expect(Number(csv[2]!.split(',')[4])).toBe(r.rows[0]!.expectedDistance);
    const ch = compareChart(r);
    expect(ch.categories).toHaveLength(SPECS.length);
    expect(ch.series[0]!.y[1]).toBe(r.rows[1]!.expectedDistance);
  });

  it('refuses bad input at the boundary with one clear message', async () => {
    const bad = (x: Record<string, unknown>) =>
      parseJobRequest(compareJob({ mechanisms: [{ kind: 'planar-laplace' }], ...x }));
    expect(bad({ mechanisms: [] }).ok).toBe(false);
    expect(bad({ mechanisms: Array(9).fill({ kind: 'rr' }) }).ok).toBe(false);
    expect(bad({ mechanisms: [{ kind: 'rr', delta: 1.1 }] }).ok).toBe(false);
    expect(bad({ epsilon: 0 }).ok).toBe(false);
    const req = bad({ focus: N });
    if (!req.ok) throw new Error(req.error.message);
    await expect(runJobRequest(req.value, silentContext())).rejects.toThrow(MechError);
    await expect(runJobRequest(req.value, silentContext())).rejects.toThrow(/focus cell 20 is outside/);
  });

  it('a construction that does not exist is a row that says so, the others are computed', async () => {
    // tight constraints on a grid needs a large eps: at 0.05 per km it does not exist
    const r = await runJob<'compare'>(
      compareJob({ epsilon: 0.05, mechanisms: [{ kind: 'tight' }, { kind: 'planar-laplace' }] }),
    );
    expect(r.rows[0]!.exists).toBe(false);
    // its weights (the solution z of Phi z = 1) would have to be negative: the most negative one, and where
    const note = r.rows[0]!.notes![0]!;
    expect(r.rows[0]!.notes).toHaveLength(1);
    if (note.kind !== 'tight-does-not-exist') throw new Error(`a ${note.kind} note`);
    expect(note.epsilon).toBe(0.05);
    expect(note.minZ).toBeCloseTo(-0.11624018196, 9);
    expect(note.minZAt).toBe('(2,1)');
    expect(compareTableText(r).rows[0]![1]).toBe('does not exist');
    expect(compareTableText(r).notes[0]).toBe(
      'tight: does not exist at ε = 0.05: its weights would have to be negative (smallest -0.116 at cell (2,1))',
    );
    expect(r.rows[1]!.exists).toBe(true);
  });
});

describe('compare: admission and the Node-side PNG', () => {
  it('refuses before building what cannot finish, naming the job', async () => {
    const { admitRequest } = await import('../../../../src-worker/jobs/admission');
    const req = validRequest(
      compareJob({
        domain: 'grid:2000x2000',
        epsilon: 1,
        mechanisms: [{ kind: 'exponential' }, { kind: 'planar-laplace', remap: true }],
      }),
    );
    mechError(() => admitRequest(req), 'too-large', /comparing 2 mechanisms/);
  });

  it('the chart of a comparison renders to PNG on the Node side (the same spec the app draws)', async () => {
    const { renderChartPng } = await import('../../../../src-main/charts/render-chart');
    const r = await compare();
    const png = renderChartPng(compareChart(r), 800, 400);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.readUInt32BE(16)).toBe(800);
    expect(png.readUInt32BE(20)).toBe(400);
  }, 60_000);
});

describe('compare: Stop on an optimal row', () => {
  it('is an LP job when a row is optimal (Stop keeps a result), not otherwise', async () => {
    const { isLpJob } = await import('../../../../src-main/dispatcher/dispatcher');
    const p = (kinds: string[]) => validRequest(compareJob({ mechanisms: kinds.map((kind) => ({ kind })) }));
    expect(isLpJob(p(['planar-laplace', 'optimal']))).toBe(true);
    expect(isLpJob(p(['planar-laplace', 'tight']))).toBe(false);
  });

  it('a raised stop flag ends the LP with its best mechanism and the comparison still completes', async () => {
    const req = validRequest(
      compareJob({ ...WITH_PRIOR, mechanisms: [{ kind: 'optimal' }, { kind: 'planar-laplace' }] }),
    );
    const stopFlag = new Int32Array(new SharedArrayBuffer(4));
    stopFlag[0] = 1;
    const r = await runJob<'compare'>(req, { ...silentContext(), stopFlag });
    expect(r.rows).toHaveLength(2);
    expect(r.rows[1]!.exists).toBe(true);
    // stopped at once: its best mechanism so far, honestly labelled, whose stored channel passes the check
    expect(r.rows[0]!.exists).toBe(true);
    expect(r.rows[0]!.lp!.stoppedBy).toBe('stopped');
    expect(compareTableText(r).notes[0]).toMatch(
      /^optimal: optimised for distance between guess and truth, stopped early \(the best private mechanism found so far\): expected loss [\d.]+/,
    );
    expect(r.rows[0]!.lp!.lowerBound!).toBeLessThanOrEqual(r.rows[0]!.lp!.objective);
    expect(r.rows[0]!.effectiveEpsilon!).toBeLessThanOrEqual(EPS * (1 + 1e-9));
  }, 60_000);
});

describe('compare: mechanisms computed elsewhere (a project construction, a kept channel)', () => {
  const REF = 'ch-0123456789abcdef0123456789abcdef';
  const parsed = (mechanisms: unknown[]) => parseJobRequest(compareJob({ mechanisms }));
  const problem = (mechanisms: unknown[]): string => {
    const r = parsed(mechanisms);
    if (r.ok) throw new Error('accepted');
    return r.error.message;
  };

  it('the request takes a channelRef, a construction or a matrix per entry, strictly', () => {
    expect(parsed([{ kind: 'optimal', channelRef: REF, label: 'opt (project)' }]).ok).toBe(true);
    expect(
      parsed([{ kind: 'planar-laplace', mechanism: { domain: DOMAIN, epsilon: EPS, kind: 'planar-laplace' } }]).ok,
    ).toBe(true);
    expect(
      parsed([{ kind: 'rr', channel: { rows: 1, cols: 1, data: [1], rowLabels: ['a'], colLabels: ['a'] } }]).ok,
    ).toBe(true);
    expect(problem([{ kind: 'optimal', channelRef: 'opt' }])).toMatch(/channelRef must be an id the host returned/);
    expect(problem([{ kind: 'optimal', channelRef: REF, keep: true }])).toMatch(/keep/);
    expect(
      problem([
        {
          kind: 'optimal',
          channelRef: REF,
          channel: { rows: 1, cols: 1, data: [1], rowLabels: ['a'], colLabels: ['a'] },
        },
      ]),
    ).toMatch(/at most one of mechanism .* channelRef .* or channel/);
    expect(problem([{ kind: 'optimal', channelRef: REF, targetGap: 0.01 }])).toMatch(
      /remap and the LP options belong to the construction/,
    );
    expect(problem([{ kind: 'optimal', channelRef: REF, remap: true }])).toMatch(
      /remap and the LP options belong to the construction/,
    );
    expect(problem([{ kind: 'tight', mechanism: { domain: DOMAIN, epsilon: EPS, kind: 'planar-laplace' } }])).toMatch(
      /kind must be the kind of the given/,
    );
  });

  it('a kept optimal channel (as the host hands it on) gives the same figures as the optimal built by the comparison', async () => {
    const opt = await runJob<'mechanism'>({
      type: 'mechanism',
      domain: DOMAIN,
      epsilon: EPS,
      kind: 'optimal',
      ...WITH_PRIOR,
      loss: 'dist',
    });
    const pl = { domain: DOMAIN, epsilon: EPS, kind: 'planar-laplace', ...WITH_PRIOR, loss: 'dist', remap: true };
    const r = await runJob<'compare'>(
      compareJob({
        ...WITH_PRIOR,
        loss: 'dist',
        mechanisms: [
          { kind: 'optimal' },
          { kind: 'optimal', channel: opt.matrix, label: 'opt (project)' },
          { kind: 'planar-laplace', remap: true },
          { kind: 'planar-laplace', mechanism: pl, label: 'planar (project)' },
        ],
      }),
    );
    const [built, kept, plBuilt, plProject] = r.rows as [CompareRow, CompareRow, CompareRow, CompareRow];
    const want = brute(await channelOf('optimal', false));
    for (const row of [built, kept]) {
      expect(row.exists).toBe(true);
      expect(row.expectedDistance!).toBeCloseTo(want.ed, 9);
      expect(row.expectedDistanceRemapped!).toBeCloseTo(want.edRemapped, 9);
      expect(row.pTrue!).toBeCloseTo(want.pTrue, 12);
      expect(row.leakageBits!).toBeCloseTo(want.leakage, 9);
      expect(row.effectiveEpsilon!).toBeCloseTo(want.effEps, 6);
    }
    expect(kept.label).toBe('opt (project)');
    expect(kept.kind).toBe('optimal');
    expect(kept.betterThanPlanarLaplacePct!).toBeCloseTo(built.betterThanPlanarLaplacePct!, 9);
    expect(kept.focusRow).toEqual(built.focusRow);
    // a channel guarantees nothing by construction: no guaranteed eps, no LP record; it was checked against the
    // comparison's eps
    expect(kept.guaranteedEpsilon).toBeNull();
    expect(kept.lp).toBeUndefined();
    expect(kept.notes).toBeUndefined();
    // a project mechanism by its construction (planar Laplace remapped for its prior and loss) equals the comparison's
    // own
    const plWant = brute(await channelOf('planar-laplace', true));
    for (const row of [plBuilt, plProject]) {
      expect(row.remap).toBe(true);
      expect(row.expectedDistance!).toBeCloseTo(plWant.ed, 9);
      expect(row.expectedDistanceRemapped!).toBeCloseTo(plWant.edRemapped, 9);
      expect(row.guaranteedEpsilon).toBe(EPS);
    }
  }, 60_000);

  it('a channel that is not private at the comparison’s eps is labelled so', async () => {
    const pl = await runJob<'mechanism'>({
      type: 'mechanism',
      domain: DOMAIN,
      epsilon: 2 * EPS,
      kind: 'planar-laplace',
    });
    const r = await runJob<'compare'>(
      compareJob({ mechanisms: [{ kind: 'planar-laplace', channel: pl.matrix, label: 'at 2 eps' }] }),
    );
    expect(r.rows[0]!.effectiveEpsilon!).toBeGreaterThan(EPS * 1.5);
    const eff = r.rows[0]!.effectiveEpsilon!;
    expect(r.rows[0]!.notes).toEqual([
      { kind: 'not-private-above', effectiveEpsilon: eff, limit: EPS, against: 'comparison' },
    ]);
    expect(compareTableText(r).notes).toEqual([
      `at 2 eps: NOT private as stored: its effective ε is ${sig3(eff)} per km, above the comparison's 1.2`,
    ]);
  });

  it('refuses, naming the entry, what is not of this comparison or a reference that reached a worker', async () => {
    const run = (mechanisms: unknown[]) => runJobRequest(validRequest(compareJob({ mechanisms })), silentContext());
    await expect(
      run([{ kind: 'rr', mechanism: { domain: DOMAIN, epsilon: 2, kind: 'rr' }, label: 'rr at 2' }]),
    ).rejects.toThrow(/the mechanism rr at 2 is built for eps 2 but the comparison is at eps 1.2/);
    await expect(
      run([{ kind: 'rr', mechanism: { domain: 'grid:4x5:step=1', epsilon: EPS, kind: 'rr' } }]),
    ).rejects.toThrow(/built on another domain than the comparison's grid:4x5:step=0.5/);
    // the same grid written otherwise is the same domain
    const same = await run([{ kind: 'rr', mechanism: { domain: 'grid:4x5:step=0.50', epsilon: EPS, kind: 'rr' } }]);
    expect((same as CompareResult).rows[0]!.exists).toBe(true);
    await expect(
      run([{ kind: 'rr', channel: { rows: 1, cols: 1, data: [1], rowLabels: ['a'], colLabels: ['a'] } }]),
    ).rejects.toThrow(/the channel of rr has 1 secret rows but the domain grid:4x5:step=0.5 has 20 points/);
    await expect(run([{ kind: 'optimal', channelRef: REF }])).rejects.toThrow(/names a channel kept by the app host/);
  });
});
