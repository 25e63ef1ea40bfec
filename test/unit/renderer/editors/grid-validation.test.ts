import { describe, expect, it } from 'vitest';
import {
  epsilonFromLevel,
  levelFromEpsilon,
  normalise,
  paintBrush,
  parseGridPriorCsv,
  validateEpsilon,
  validateGrid,
} from '../../../../src-renderer/editors/grid-validation';
import { domainSize, domainText, parseDomainText } from '../../../../src-renderer/editors/domain-spec';

describe('grid editor validation', () => {
  it('accepts a valid grid and names each bad field', () => {
    expect(validateGrid({ rows: 20, cols: 30, step: 0.5, metric: 'euclidean' })).toEqual({});
    const e = validateGrid({ rows: 0, cols: 2.5, step: -1, metric: 'taxicab' });
    expect(e.rows).toMatch(/rows must be a whole number/);
    expect(e.cols).toMatch(/columns must be a whole number/);
    expect(e.step).toMatch(/cell size must be a number > 0/);
    expect(e.metric).toMatch(/euclidean, manhattan or chebyshev/);
    expect(validateGrid({ rows: 600, cols: 600, step: 1, metric: 'manhattan' }).rows).toMatch(/360000 cells/);
    expect(validateGrid({ rows: 1, cols: 1, step: Number.NaN, metric: 'manhattan' }).step).toBeDefined();
  });

  it('phrases eps per km as a privacy level l within radius r (eps = l / r)', () => {
    expect(epsilonFromLevel(Math.LN2, 0.2)).toBeCloseTo(Math.LN2 / 0.2, 14);
    expect(levelFromEpsilon(epsilonFromLevel(1.5, 3), 3)).toBeCloseTo(1.5, 14);
    expect(() => epsilonFromLevel(0, 1)).toThrow(/privacy level/);
    expect(() => epsilonFromLevel(1, -2)).toThrow(/radius/);
    expect(validateEpsilon(0)).toMatch(/> 0/);
    expect(validateEpsilon(Infinity)).toMatch(/finite/);
    expect(validateEpsilon(0.1)).toBeNull();
  });

  it('paints a brush with linear fall-off inside the grid only and normalises', () => {
    const w = new Float64Array(9);
    paintBrush(w, 3, 3, 0, 0, 1, 1);
    // radius 1: centre weight 1, the two 4-neighbours at distance 1 get 1 - 1/2; diagonal (1.41) is outside
    expect(Array.from(w)).toEqual([1, 0.5, 0, 0.5, 0, 0, 0, 0, 0]);
    const p = normalise(w)!;
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 15);
    expect(p[0]).toBeCloseTo(0.5, 15);
    paintBrush(w, 3, 3, 0, 0, 1, 5, true);
    expect(normalise(w)).toBeNull();
  });

  it('parses a grid prior CSV and reports the first bad cell', () => {
    const ok = parseGridPriorCsv('1,1\n2,4\n', 2, 2);
    expect(ok).toEqual({ ok: true, values: [0.125, 0.125, 0.25, 0.5] });
    expect(parseGridPriorCsv('1,x\n2,4', 2, 2)).toEqual({ ok: false, error: "line 1, column 2: 'x' is not a number" });
    expect(parseGridPriorCsv('1,-1\n2,4', 2, 2)).toEqual({ ok: false, error: 'line 1, column 2: -1 is negative' });
    expect(parseGridPriorCsv('1,1,1', 2, 2)).toEqual({ ok: false, error: 'expected 4 values (2 × 2), found 3' });
    expect(parseGridPriorCsv('0,0\n0,0', 2, 2)).toEqual({ ok: false, error: 'all values are zero' });
  });

  it('round-trips SPEC §8 domain texts and counts secrets', () => {
    for (const t of [
      'grid:20x30:step=0.5:metric=manhattan',
      'grid:4x4',
      'line:6',
      'ring:7',
      'clique:3',
      'hamming:4',
      'count:5',
      'sum:3,4',
      'kcount:2,3',
      'db:5,4:metric=max',
      'db:2,2',
      'db:3,2:metric=normalised:absent',
      'avg:3,4',
      'max:2,5',
      'percentile:5,4,50',
      'argmax:3,4',
    ]) {
      expect(domainText(parseDomainText(t))).toBe(t);
    }
    expect(domainSize(parseDomainText('grid:20x30'))).toBe(600);
    expect(domainSize(parseDomainText('db:5,4'))).toBe(1024);
    expect(domainSize(parseDomainText('sum:3,4'))).toBe(13);
    expect(domainSize(parseDomainText('kcount:2,3'))).toBe(16);
    expect(domainSize(parseDomainText('db:2,3:absent'))).toBe(16);
    expect(domainSize(parseDomainText('max:2,5'))).toBe(6);
    expect(parseDomainText('csv:metric.csv')).toEqual({ kind: 'csv', file: 'metric.csv' });
    expect(domainSize(parseDomainText('csv:metric.csv'))).toBeNaN();
    // a text the engine refuses is 'other', with the engine's message (the shared grammar)
    const bad = parseDomainText('grid:4x4:step=0');
    expect(bad.kind).toBe('other');
    expect(bad.kind === 'other' && bad.error).toMatch(
      /^malformed domain 'grid:4x4:step=0': expected grid:RxC.* with S a number > 0; accepted forms: /,
    );
    expect(domainSize(bad)).toBeNaN();
  });
});
