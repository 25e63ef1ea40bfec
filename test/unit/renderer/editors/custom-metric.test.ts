import { describe, expect, it } from 'vitest';
import { parseMetricCsv, toDomainInput, validateMetric } from '../../../../src-renderer/editors/custom-metric';
import { parseCustomMetricCsv } from '../../../../src-worker/metric/custom-metric';
import { parseTraceCsv, perReadingEpsilon, quantise, sampleNoisy } from '../../../../src-renderer/editors/smartmeter';

describe('custom metric import', () => {
  it('reads a labelled CSV with infinities', () => {
    const r = parseMetricCsv(',a,b,c\na,0,1,inf\nb,1,0,inf\nc,inf,inf,0\n');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.metric.labels).toEqual(['a', 'b', 'c']);
    expect(r.metric.distances).toEqual([0, 1, Infinity, 1, 0, Infinity, Infinity, Infinity, 0]);
    expect(toDomainInput(r.metric).distances).toEqual([0, 1, null, 1, 0, null, null, null, 0]);
  });

  it('reads an unlabelled square matrix', () => {
    const r = parseMetricCsv('0,2\n2,0');
    expect(r).toEqual({ ok: true, metric: { labels: ['0', '1'], distances: [0, 2, 2, 0] } });
  });

  it('names the row and column of every kind of violation', () => {
    /** CSV text, the error, and the [row, col] it names (where it names a cell). */
    const refused: [string, string, [number, number]?][] = [
      [',a,b\na,0,1\nb,1,0,3', 'row 2 (b) has 3 distances, expected 2: the matrix must be square'],
      [',a,b\na,0,x\nb,1,0', "row a, column b: 'x' is not a number", [0, 1]],
      [',a,b\na,1,1\nb,1,0', "diagonal distance at row 'a', column 'a' is 1, must be 0", [0, 0]],
      [',a,b\na,0,-1\nb,-1,0', "distance at row 'a', column 'b' is negative (-1)", [0, 1]],
      [',a,b\na,0,1\nb,2,0', "not symmetric: row 'a', column 'b' is 1 but row 'b', column 'a' is 2", [0, 1]],
      [
        ',a,b,c\na,0,1,3\nb,1,0,1\nc,3,1,0',
        "triangle inequality fails for ('a', 'b', 'c'): d('a','c') = 3 > d('a','b') + d('b','c') = 2 (row 'a', column 'c')",
        [0, 2],
      ],
      [',a,b\na,0,1', 'the header has 2 labels but there are 1 rows: the matrix must be square'],
      ['', 'the file is empty'],
      [',a,b\na,0,1e999\nb,1e999,0', "row a, column b: '1e999' is not a number", [0, 1]],
      ['0,"1\n1,0', 'malformed CSV at line 1, field 2: a quoted field is not closed before the end of the file'],
    ];
    for (const [csv, error, cell] of refused)
      expect(parseMetricCsv(csv), csv).toMatchObject({ ok: false, error, ...(cell && { row: cell[0], col: cell[1] }) });
    expect(validateMetric(['a'], [0])).toBeNull();
  });

  it("accepts and refuses exactly what the engine does, in the engine's words", () => {
    const texts = [
      ',a,b,c\na,0,1,2\nb,1,0,1\nc,2,1,0\n',
      ',a,b,c\na,0,1,inf\nb,1,0,inf\nc,inf,inf,0\n',
      ',a,b,c\na,0,1,3\nb,1,0,1\nc,3,1,0\n',
      ',a,b,c\na,0,1,2.000000001\nb,1,0,1\nc,2.000000001,1,0\n', // within REL_TOL
      ',a,b,c\na,0,1,2.00001\nb,1,0,1\nc,2.00001,1,0\n',
      ',a,b\na,0,1\nb,1.0000000001,0\n', // symmetric within REL_TOL
      ',a,b\na,0,NaN\nb,1,0\n',
      ',a,b\na,0,-inf\nb,1,0\n',
      ',a,b\na,0.5,1\nb,1,0\n',
      ',"x,1",y\n"x,1",0,1\ny,1,0\n',
    ];
    for (const t of texts) {
      const page = parseMetricCsv(t);
      const engine = (): unknown => parseCustomMetricCsv(t, 'm.csv');
      // the same message, the engine's behind the file name
      if (page.ok) expect(engine, t).not.toThrow();
      else expect(engine, t).toThrow(expect.objectContaining({ message: `m.csv: ${page.error}` }));
    }
  });
});

describe('smart-meter traces', () => {
  it('parses a trace with a header and time column', () => {
    expect(parseTraceCsv('time,watts\n0,10\n10,30\n20,20\n')).toEqual({
      ok: true,
      values: [10, 30, 20],
      times: [0, 10, 20],
      timeKind: 'number',
      timeLabel: 'time',
      valueLabel: 'watts',
      unit: 'W',
    });
    expect(parseTraceCsv('1\n2\nabc')).toEqual({ ok: false, error: "line 3: 'abc' is not a number" });
    expect(parseTraceCsv('5')).toEqual({ ok: false, error: 'a trace needs at least 2 readings' });
  });

  it('quantises to levels between min and max', () => {
    const t = quantise([0, 25, 50, 100], 5);
    expect(t.step).toBe(25);
    expect(t.levels).toEqual([0, 1, 2, 4]);
  });

  it('splits eps per reading by metric: d1 composes, d_inf divides by u', () => {
    expect(perReadingEpsilon(2, 24, 'd1')).toBe(2);
    expect(perReadingEpsilon(2, 24, 'dinf')).toBeCloseTo(2 / 24, 15);
  });

  it('samples from channel rows (identity channel gives the trace back; deterministic by seed)', () => {
    const id = [1, 0, 0, 0, 1, 0, 0, 0, 1];
    expect(sampleNoisy([2, 0, 1], id, 3, 7)).toEqual([2, 0, 1]);
    const flat = new Array(9).fill(1 / 3);
    expect(sampleNoisy([0, 1, 2, 0], flat, 3, 5)).toEqual(sampleNoisy([0, 1, 2, 0], flat, 3, 5));
    // empirical frequencies follow the row: 20000 draws from row [0.2, 0.3, 0.5]
    const row = [0.2, 0.3, 0.5];
    const draws = sampleNoisy(new Array(20000).fill(0), row, 3, 11);
    const f = [0, 1, 2].map((k) => draws.filter((d) => d === k).length / draws.length);
    f.forEach((x, k) => expect(Math.abs(x - row[k]!)).toBeLessThan(0.015));
  });
});
