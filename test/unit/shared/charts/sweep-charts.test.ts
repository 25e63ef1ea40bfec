import { describe, expect, it } from 'vitest';
import { plainText } from '../../../../src-renderer/lib/plain';
import {
  attainedAt,
  lossWords,
  missingRuns,
  rangeText,
  sweepCharts,
  sweepNotes,
  sweepTable,
  BOUND_COLOR,
} from '../../../../src-shared/charts/sweep-charts';
import { chartConfig } from '../../../../src-shared/charts/chart-config';
import { sweepNoteWords } from '../../../../src-shared/charts/note-words';
import { sweepJob } from '../../../../src-worker/jobs/analysis-jobs';
import { silentContext } from '../../../../src-worker/jobs/context';
import { buildMechanism, expectedLoss, parseDomain } from '../../../../src-worker/jobs/engine';
import { admitJob, admitRequest } from '../../../../src-worker/jobs/admission';
import { sweepBoundsRefusal } from '../../../../src-worker/jobs/job-costs';
import type { SweepResult } from '../../../../src-shared/protocol/results';
import type { SweepRequest } from '../../../../src-shared/protocol/requests';
import { sweepResultSchema } from '../../../../src-shared/protocol/results';

/** A sweep job as the runner runs it: admitted first (jobs/admission.ts). */
const sweepRun = (req: SweepRequest) => sweepJob(req, silentContext(), admitJob(req));

const EPS = [0.5, 1, 1.5, 2, 2.5];
/** A hand-made sweep: tight missing below 1.5 (engine notes), equal to the bound from 1.5 on. */
function fake(): SweepResult {
  return {
    type: 'sweep',
    domain: 'line:4',
    epsilons: EPS,
    series: [
      {
        kind: 'tight',
        utility: [null, null, 0.5, 0.6, 0.7],
        leakage: [null, null, 1, 1.2, 1.4],
        expectedLoss: [null, null, 0.9, 0.7, 0.5],
        notes: [
          { kind: 'tight-does-not-exist', minZ: -0.123456789, minZAt: '2' },
          { kind: 'tight-does-not-exist', minZ: -0.01, minZAt: '2' },
          null,
          null,
          null,
        ],
      },
      {
        kind: 'tg',
        utility: [0.3, 0.4, 0.45, 0.6 - 1e-3, 0.7 * (1 - 1e-12)],
        leakage: [0.2, 0.4, 0.8, 1.1, 1.4 * (1 + 1e-12)],
        expectedLoss: [1.5, 1.2, 1, 0.8, 0.6],
        notes: [null, null, null, null, null],
      },
    ],
    bounds: {
      utility: [null, null, 0.5, 0.6, 0.7],
      leakage: [null, null, 1, 1.2, 1.4],
      notes: ['not regular at 0.5', 'not regular at 1', null, null, null],
    },
  };
}

describe('sweep charts: what was asked, why points are missing, bounds on top', () => {
  it('attainedAt: equal within the relative tolerance, never where either side is missing', () => {
    expect(attainedAt([null, 1, 2, 3, 4], [1, 1 + 1e-9, 2.1, null, 4 * (1 - 2e-6)])).toEqual([
      false,
      true,
      false,
      false,
      false,
    ]);
    expect(attainedAt([0.5, Number.NaN], [0.5, Number.NaN])).toEqual([true, false]);
  });

  it('the loss in words, in km on grids (km cells), km² squared, no unit elsewhere', () => {
    expect(lossWords('dist', 'grid:30x30:step=0.5')).toEqual({
      lossLabel: 'distance between guess and truth',
      lossUnit: 'km',
    });
    expect(lossWords('dist2', 'grid:3x3')).toEqual({
      lossLabel: 'squared distance between guess and truth',
      lossUnit: 'km²',
    });
    expect(lossWords('dist', 'line:6')).toEqual({ lossLabel: 'distance between guess and truth' });
    expect(lossWords({ matrix: 1 }, 'grid:3x3')).toEqual({ lossLabel: 'the custom loss matrix' });
    expect(lossWords(undefined, 'grid:3x3')).toEqual({});
  });

  it('missing runs and their ranges carry the engine note of the last missing point', () => {
    const r = fake();
    const runs = missingRuns(r.epsilons, r.series[0]!.utility, r.series[0]!.notes);
    expect(runs).toEqual([{ from: 0.5, to: 1, count: 2, note: r.series[0]!.notes![1] }]);
    expect(rangeText(runs[0]!, EPS)).toBe('ε ≤ 1');
    expect(rangeText({ from: 1, to: 2, count: 3, note: null }, EPS)).toBe('ε 1–2');
    expect(rangeText({ from: 2, to: 2.5, count: 2, note: null }, EPS)).toBe('ε ≥ 2');
    expect(rangeText({ from: 0.5, to: 2.5, count: 5, note: null }, EPS)).toBe('all ε');
    expect(missingRuns([1, 2, 3], [1, null, 3])).toEqual([{ from: 2, to: 2, count: 1, note: null }]);
    const notRegular = {
      kind: 'not-regular',
      domain: 'grid:6x6:step=0.5',
      epsilon: 1.25,
      minMu: -0.000104006,
      minMuAt: '(1,1)',
    } as const;
    expect(sweepNoteWords(notRegular, 'short')).toBe('the prior is not regular there');
    const tight = { kind: 'tight-does-not-exist', minZ: -0.010400608345545286, minZAt: '(8,1)' } as const;
    expect(sweepNoteWords(tight)).toBe(
      'no tight-constraints mechanism exists: its weight at (8,1) would be -0.0104 < 0',
    );
    expect(sweepNoteWords(tight, 'short')).toBe('no tight-constraints mechanism exists');
    // the table names the point's eps and keeps every digit
    expect(sweepNoteWords(tight, 'table', 1.25)).toBe(
      'Phi z = 1 has z[(8,1)] = -0.010400608345545286 < 0, so no tight-constraints mechanism exists at eps = 1.25',
    );
    // the page's plain-words pass leaves the worded note as it is
    expect(plainText(sweepNoteWords(tight))).toBe(
      'no tight-constraints mechanism exists: its weight at (8,1) would be -0.0104 < 0',
    );
    // a note kept by an earlier version as a sentence is shown as recorded
    expect(sweepNoteWords('not regular at 1')).toBe('not regular at 1');
  });

  it('plots the chosen loss first, then utility and leakage; notes say why points are missing; the bound is dashed, black, on top and labelled', () => {
    const charts = sweepCharts(fake(), {
      id: 'a',
      lossLabel: 'distance between guess and truth',
      lossUnit: 'km',
      kindLabel: (k) => (k === 'tight' ? 'tight constraints' : 'truncated geometric'),
    });
    expect(charts.map((c) => c.id)).toEqual(['a-expected-loss', 'a-utility', 'a-leakage']);
    const [loss, util, leak] = charts as [(typeof charts)[0], (typeof charts)[0], (typeof charts)[0]];
    expect(loss.yLabel).toBe('expected loss (km)');
    expect(loss.title).toContain('distance between guess and truth');
    expect(loss.series.map((s) => s.y)).toEqual([fake().series[0]!.expectedLoss, fake().series[1]!.expectedLoss]);
    expect(loss.series.some((s) => s.dashed)).toBe(false); // no bound for a loss
    // on the chart: the first clause of the engine's note; in full for the page and the table
    expect(loss.notes).toEqual(['tight constraints: no point for ε ≤ 1 (no tight-constraints mechanism exists)']);
    expect(sweepNotes(fake(), 'expectedLoss', { kindLabel: () => 'tight constraints' })[0]).toBe(
      'tight constraints: no point for ε ≤ 1 (no tight-constraints mechanism exists: its weight at 2 would be -0.01 < 0)',
    );
    expect(loss.series[0]!.label).toBe('tight constraints (no point for ε ≤ 1)');

    const bound = util.series.at(-1)!;
    expect(bound).toMatchObject({ dashed: true, onTop: true, color: BOUND_COLOR, y: [null, null, 0.5, 0.6, 0.7] });
    expect(bound.label).toBe('utility bound (regular prior), attained by tight constraints, truncated geometric');
    expect(util.series[0]!.label).toBe('tight constraints (attains the bound for ε ≥ 1.5; no point for ε ≤ 1)');
    // tg equals the bound only at 2.5 (1e-3 below at 2)
    expect(util.series[1]!.label).toBe('truncated geometric (attains the bound for ε = 2.5)');
    expect(util.notes).toContain('bound: none for ε ≤ 1 (not regular at 1)');
    expect(leak.series[1]!.label).toBe('truncated geometric (attains the bound for ε = 2.5)');
    // mechanism colours are never the bound's
    for (const c of charts) for (const s of c.series.slice(0, 2)) expect(s.color).not.toBe(BOUND_COLOR);

    // the Chart.js configuration draws the bound over every curve (lowest order is drawn last) and shows the notes
    const cfg = chartConfig(util) as {
      data: { datasets: { order: number; label: string }[] };
      options: { plugins: { subtitle?: { display: boolean; text: string[] } } };
    };
    const orders = cfg.data.datasets.map((d) => d.order);
    expect(orders.at(-1)).toBeLessThan(Math.min(...orders.slice(0, -1)));
    expect(cfg.options.plugins.subtitle?.text).toEqual(util.notes);
  });

  it('without a loss there is no loss chart, and the table holds every series, the bounds and the notes', () => {
    const r = fake();
    for (const s of r.series) delete s.expectedLoss;
    expect(sweepCharts(r).map((c) => c.id)).toEqual(['sweep-utility', 'sweep-leakage']);
    const t = sweepTable(fake(), { lossUnit: 'km' });
    expect(t.header).toEqual([
      'epsilon',
      'tight expected loss (km)',
      'tight utility',
      'tight leakage (bits)',
      'tight note',
      'tg expected loss (km)',
      'tg utility',
      'tg leakage (bits)',
      'tg note',
      'utility bound',
      'leakage bound (bits)',
      'bound note',
    ]);
    expect(t.rows[0]).toEqual([
      0.5,
      null,
      null,
      null,
      'Phi z = 1 has z[2] = -0.123456789 < 0, so no tight-constraints mechanism exists at eps = 0.5',
      1.5,
      0.3,
      0.2,
      null,
      null,
      null,
      'not regular at 0.5',
    ]);
    expect(t.rows[3]![1]).toBe(0.7);
  });

  it('a real sweep on a grid: expected distance per mechanism, tight missing at small ε with the engine note, the bound attained by tight', async () => {
    const r = await sweepRun({
      type: 'sweep',
      domain: 'grid:6x6:step=0.5',
      kinds: ['planar-laplace', 'tight'],
      from: 0.5,
      to: 4,
      steps: 8,
      loss: 'dist',
    });
    expect(sweepResultSchema.safeParse(r).success).toBe(true);
    expect(r.bounds.notes).toHaveLength(8);
    const tight = r.series[1]!;
    // where tight is missing, the engine said why; where it exists, it attains the bound (SPEC §5)
    expect(tight.utility.some((v) => v === null)).toBe(true);
    tight.utility.forEach((v, k) => {
      if (v === null)
        expect(sweepNoteWords(tight.notes![k]!)).toMatch(
          /^no tight-constraints mechanism exists: its weight at \S+ would be -[\d.e-]+ < 0$/,
        );
      else expect(Math.abs(v - r.bounds.utility[k]!)).toBeLessThan(1e-9);
    });
    const [loss, util] = sweepCharts(r, { lossUnit: 'km' });
    expect(loss!.yLabel).toBe('expected loss (km)');
    // expected distance decreases with ε for planar Laplace
    const pl = r.series[0]!.expectedLoss!;
    for (let k = 1; k < pl.length; k++) expect(pl[k]!).toBeLessThan(pl[k - 1]!);
    expect(util!.series[1]!.label).toMatch(/^tight \(attains the bound for ε ≥ [\d.]+; no point for ε ≤ [\d.]+\)$/);
    expect(util!.notes!.join('\n')).toMatch(/tight: no point for ε ≤ [\d.]+ \(no tight-constraints mechanism exists\)/);
    expect(util!.notes!.join('\n')).toMatch(/bound: none for ε ≤ [\d.]+ \(the prior is not regular there\)/);
  });

  it('the expected distance of a grid sweep (certified remap) equals the optimal-remap measure of each mechanism', async () => {
    for (const loss of ['dist', 'dist2'] as const) {
      const r = await sweepRun({
        type: 'sweep',
        domain: 'grid:5x6:step=0.5',
        kinds: ['planar-laplace', 'tight', 'exponential'],
        from: 1,
        to: 3,
        steps: 3,
        loss,
      });
      const domain = parseDomain('grid:5x6:step=0.5');
      const prior = new Float64Array(domain.n).fill(1 / domain.n);
      for (const s of r.series) {
        for (let k = 0; k < r.epsilons.length; k++) {
          const o = await buildMechanism(s.kind as 'tight', domain, r.epsilons[k]!, {
            prior,
            signal: new AbortController().signal,
            progress: () => undefined,
          });
          if (!o.exists) {
            expect(s.expectedLoss![k]).toBeNull();
            continue;
          }
          const want = expectedLoss(prior, o.mechanism.channel, { kind: loss }, domain).value;
          expect(Math.abs(s.expectedLoss![k]! - want)).toBeLessThanOrEqual(1e-12 * Math.max(1, want));
        }
      }
    }
  });

  it('bounds too costly for the domain: the curves are still drawn, the bounds left out with the reason (not a refused sweep)', async () => {
    const big = {
      type: 'sweep' as const,
      domain: 'grid:30x30:step=0.5',
      kinds: ['planar-laplace' as const, 'tight' as const],
      from: 0.5,
      to: 4,
      steps: 15,
    };
    expect(() => admitRequest(big)).not.toThrow();
    expect(sweepBoundsRefusal(big)).toMatch(
      /regularity bounds at 15 eps values on grid:30x30:step=0.5 solves mu Phi = pi by a dense n\^3 LU 15 times/,
    );
    expect(sweepBoundsRefusal({ ...big, steps: 4 })).toBeNull();
    // the same path, cheaply: randomised response on a 20 x 20 grid at 70 eps values (70 dense 400^3 solves are over
    // the limit)
    const r = await sweepRun({ type: 'sweep', domain: 'grid:20x20', kinds: ['rr'], from: 0.5, to: 4, steps: 70 });
    expect(r.series[0]!.utility.every((v) => v !== null && v > 0)).toBe(true);
    expect(r.bounds.utility.every((v) => v === null)).toBe(true);
    expect(
      r.bounds.notes!.every(
        (n) => n !== null && sweepNoteWords(n).startsWith('not computed, too costly on this domain: '),
      ),
    ).toBe(true);
    const util = sweepCharts(r)[0]!;
    expect(util.notes).toEqual(['bound: none for all ε (not computed, too costly on this domain)']);
  });
});
