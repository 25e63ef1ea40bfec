/**
 * The words of a comparison's typed notes: plain words, the mathematics only in `details`, one renderer for the CLI and
 * the app.
 */
import { describe, expect, it } from 'vitest';
import {
  baselineNoteWords,
  compareNotes,
  compareNoteWords,
  lpRecordWords,
} from '../../../../src-shared/charts/compare-words';
import { compareCsv, compareTableText } from '../../../../src-shared/charts/compare-report';
import {
  NO_COMPARE_FIGURES,
  compareResultSchema,
  type CompareResult,
  type CompareRow,
} from '../../../../src-shared/protocol/index';

const NOTATION = /\beps\b|\bz\b|Phi|Φ|ln\(|C\[|\bLP\b/;

function row(fields: Partial<CompareRow>): CompareRow {
  return {
    label: 'tight',
    kind: 'tight',
    remap: false,
    exists: false,
    ...NO_COMPARE_FIGURES,
    betterThanPlanarLaplacePct: null,
    timeMs: 1,
    ...fields,
  };
}

/** A comparison on line:4 at eps 1 for wrong guesses, no grid and so no planar Laplace baseline, no focus. */
const ON_LINE = {
  type: 'compare',
  domain: 'line:4',
  epsilon: 1,
  unit: 'd',
  grid: null,
  loss: 'bin',
  baseline: null,
  focus: null,
  focusLabel: null,
};

describe('compare notes in words', () => {
  it('says each note in words, the notation only in its details', () => {
    const cases = [
      [
        compareNoteWords({ kind: 'tight-does-not-exist', epsilon: 0.05, minZ: -0.0512345, minZAt: '(2,1)' }, 'km'),
        'does not exist at ε = 0.05: its weights would have to be negative (smallest -0.0512 at cell (2,1))',
        'Φz = 1 has z[(2,1)] = -0.0512345 < 0, so no tight-constraints mechanism exists at ε = 0.05',
      ],
      [
        compareNoteWords({ kind: 'tight-does-not-exist', epsilon: 1, minZ: -2, minZAt: '3' }, 'd'),
        /\(smallest -2 at point 3\)$/,
        /^Φz = 1/,
      ],
      [
        compareNoteWords({ kind: 'outputs-not-secrets', outputs: 7 }, 'km'),
        'its 7 outputs are not the locations themselves, so there is no distance as released and no chance of reporting the true cell',
        undefined,
      ],
      [
        compareNoteWords({ kind: 'remap-within', slack: 0.01234 }, 'km'),
        "the distance with remap may be up to 0.0123 km more than the best remap's (on a large grid the remap looks only near each report)",
        'windowed remap: remapped distance within +0.01234',
      ],
      [
        compareNoteWords({ kind: 'check-too-costly', reason: 'too many pairs' }, 'km'),
        'its effective privacy level was not computed: too many pairs',
        undefined,
      ],
      [
        compareNoteWords({ kind: 'not-private-zero' }, 'km'),
        'NOT private as stored: some output is possible for one location and impossible for another, so seeing it rules the other location out',
        /infinite privacy loss$/,
      ],
      [
        compareNoteWords(
          { kind: 'not-private-above', effectiveEpsilon: 2.40001, limit: 1.2, against: 'guaranteed' },
          'd',
        ),
        'NOT private as stored: its effective ε is 2.4 per unit of distance, above the guaranteed 1.2',
        'largest ln(C[x][y] / C[x′][y]) / d(x, x′) = 2.40001 > 1.2',
      ],
      [
        compareNoteWords({ kind: 'not-built', reason: 'the domain is not a grid' }, 'd'),
        'could not be built here: the domain is not a grid',
        undefined,
      ],
    ] as const;
    for (const [w, text, details] of cases) {
      if (typeof text === 'string') expect(w.text).toBe(text);
      else expect(w.text).toMatch(text);
      if (details === undefined) expect(w.details).toBeUndefined();
      else if (typeof details === 'string') expect(w.details).toBe(details);
      else expect(w.details).toMatch(details);
      expect(w.text).not.toMatch(NOTATION);
    }
  });

  it("says what an optimal row's LP reached, and how far from the best possible only when its bound is on the best possible", () => {
    const lp = {
      model: 'spanner',
      objective: 1.23456789,
      lowerBound: 1.2,
      gap: 0.0279,
      stoppedBy: 'target-gap',
      loss: 'dist',
      gapBasis: 'exact' as const,
    };
    expect(lpRecordWords(lp)).toEqual({
      text: 'optimised for distance between guess and truth: expected loss 1.23, at most 2.79% above the best possible',
      details:
        'LP (spanner model): objective 1.23457, certified lower bound 1.20000 (gap 2.79%), stopped by target-gap',
    });
    expect(lpRecordWords({ ...lp, gap: 0, lowerBound: lp.objective, stoppedBy: 'optimal' }).text).toBe(
      'optimised for distance between guess and truth: expected loss 1.23, the best possible',
    );
    expect(lpRecordWords({ ...lp, gap: null, lowerBound: null, stoppedBy: 'stopped' }).text).toBe(
      'optimised for distance between guess and truth, stopped early (the best private mechanism found so far): expected loss 1.23, no bound on the best possible was certified',
    );
    // a spanner's gap to its own bound (over 256 locations there is no exact bound) is not a bound on the best possible
    const own = { ...lp, gapBasis: 'model' as const };
    expect(lpRecordWords(own).text).toBe(
      "optimised for distance between guess and truth: expected loss 1.23, at most 2.79% above the spanner model's optimum; not checked against the best possible",
    );
    expect(lpRecordWords({ ...own, gap: 0, stoppedBy: 'optimal' }).text).toMatch(
      /expected loss 1\.23, at most 0% above the spanner model's optimum; not checked/,
    );
    // older results do not say: a spanner's gap is read as its own, an exact model's as on the best possible
    const { gapBasis: _, ...older } = lp;
    expect(lpRecordWords(older).text).toMatch(
      /above the spanner model's optimum; not checked against the best possible$/,
    );
    expect(lpRecordWords({ ...older, model: 'exact' }).text).toMatch(/at most 2\.79% above the best possible$/);
  });

  it('says why there is no planar Laplace baseline', () => {
    expect(baselineNoteWords({ kind: 'not-a-grid' }).text).toBe(
      'no comparison with planar Laplace: the domain is not a grid',
    );
    expect(baselineNoteWords({ kind: 'failed', reason: 'out of memory' }).text).toBe(
      'no comparison with planar Laplace: out of memory',
    );
    expect(baselineNoteWords({ kind: 'degenerate', expectedDistance: null }).text).toBe(
      'no comparison with planar Laplace: its expected distance is not a finite number',
    );
  });

  it('the table, the CSV and the app list the same words: the LP first, each row under its label, the baseline last', () => {
    const lp = { model: 'exact', objective: 2, lowerBound: 2, gap: 0, stoppedBy: 'optimal', loss: 'bin' };
    const r: CompareResult = compareResultSchema.parse({
      ...ON_LINE,
      baselineNote: { kind: 'not-a-grid' },
      rows: [
        row({ notes: [{ kind: 'tight-does-not-exist', epsilon: 1, minZ: -0.5, minZAt: '2' }] }),
        row({ label: 'optimal', kind: 'optimal', exists: true, lp, notes: [{ kind: 'not-private-zero' }] }),
      ],
    });
    const words = compareNotes(r).map((w) => w.text);
    expect(words).toEqual([
      'tight: does not exist at ε = 1: its weights would have to be negative (smallest -0.5 at point 2)',
      'optimal: optimised for wrong guesses (1 for a wrong guess): expected loss 2, the best possible',
      'optimal: NOT private as stored: some output is possible for one location and impossible for another, so seeing it rules the other location out',
      'no comparison with planar Laplace: the domain is not a grid',
    ]);
    expect(compareTableText(r).notes).toEqual(words);
    const csv = compareCsv(r).split('\n');
    expect(
      csv[2]!.endsWith(',does not exist at ε = 1: its weights would have to be negative (smallest -0.5 at point 2)'),
    ).toBe(true);
    expect(csv[3]!).toContain(
      '"optimised for wrong guesses (1 for a wrong guess): expected loss 2, the best possible; NOT private as stored: some output',
    );
  });

  it('two results compared carry four significant digits: 1.099 km against 1.108 km, not 1.1 against 1.11', () => {
    const at = (label: string, d: number, remapped: number, bits: number, eff: number): CompareRow =>
      row({
        label,
        kind: 'planar-laplace',
        exists: true,
        expectedDistance: d,
        expectedDistanceRemapped: remapped,
        leakageBits: bits,
        effectiveEpsilon: eff,
      });
    const r: CompareResult = compareResultSchema.parse({
      type: 'compare',
      domain: 'grid:6x6:step=0.5',
      epsilon: 1,
      unit: 'km',
      grid: { rows: 6, cols: 6, step: 0.5 },
      loss: 'dist',
      baseline: 1.0993,
      rows: [at('a', 1.0993, 0.98765, 0.123456, 1), at('b', 1.1078, 1.1, 2.5, 0.99999)],
      focus: null,
      focusLabel: null,
    });
    const t = compareTableText(r).rows;
    expect(t.map((x) => [x[1], x[2], x[4], x[5]])).toEqual([
      ['1.099 km', '0.9877 km', '0.1235 bits', '1.000 / km'],
      ['1.108 km', '1.100 km', '2.500 bits', '1.000 / km'],
    ]);
  });

  it('the protocol refuses a note of an unknown kind', () => {
    const bad = ON_LINE;
    expect(
      compareResultSchema.safeParse({ ...bad, rows: [row({ notes: [{ kind: 'bogus' } as never] })] }).success,
    ).toBe(false);
    expect(compareResultSchema.safeParse({ ...bad, rows: [row({})] }).success).toBe(true);
  });

  it('a comparison kept by an older version (notes as sentences, an LP record without its loss) still opens, its words as recorded', () => {
    const old = {
      ...ON_LINE,
      loss: 'dist',
      baselineNote: 'planar Laplace needs a grid',
      rows: [
        { ...row({}), note: 'tight constraints does not exist here' },
        {
          ...row({ label: 'optimal', kind: 'optimal', exists: true }),
          lp: { model: 'exact', objective: 0.5, lowerBound: 0.5, gap: 0, stoppedBy: 'optimal' },
        },
      ],
    };
    const r = compareResultSchema.parse(old);
    expect(compareNotes(r).map((w) => w.text)).toEqual([
      'tight: tight constraints does not exist here',
      'optimal: optimised for distance between guess and truth: expected loss 0.5, the best possible',
      'planar Laplace needs a grid',
    ]);
  });
});
