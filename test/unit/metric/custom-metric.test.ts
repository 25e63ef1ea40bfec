import { describe, expect, it } from 'vitest';
import { customMetricDomain, parseCustomMetricCsv, validateMetric } from '../../../src-worker/metric/custom-metric';
import { Matrix } from '../../../src-worker/linalg/matrix';
import { diameter, domainLabels } from '../../../src-worker/metric/domain';
import { mechError } from './helpers';

const good = ',a,b,c\na,0,1,2\nb,1,0,1\nc,2,1,0\n';

describe('custom metric from CSV', () => {
  it('reads labels and distances, allows inf', () => {
    const d = parseCustomMetricCsv(good, 'm.csv');
    expect(d.spec).toBe('csv:m.csv');
    expect(d.kind).toBe('custom');
    expect(domainLabels(d)).toEqual(['a', 'b', 'c']);
    expect(d.distance(0, 2)).toBe(2);
    expect(diameter(d)).toBe(2);
    const inf = parseCustomMetricCsv(',x,y,z\nx,0,inf,Infinity\ny,inf,0,0.5\nz,Infinity,0.5,0\n', 'i.csv');
    expect(inf.distance(0, 1)).toBe(Infinity);
    expect(inf.distance(1, 2)).toBe(0.5);
    expect(diameter(inf)).toBe(0.5);
  });

  it('reports the first violating triple by labels', () => {
    // d(a,c) = 5 > d(a,b) + d(b,c) = 2; also d(b,d) = 9 > d(b,a)+d(a,d) later
    const csv = ',a,b,c,d\na,0,1,5,1\nb,1,0,1,9\nc,5,1,0,1\nd,1,9,1,0\n';
    const e = mechError(() => parseCustomMetricCsv(csv, 't.csv'), 'not-a-metric');
    expect(e.message).toBe("t.csv: triangle inequality fails for ('a', 'b', 'c'): d('a','c') = 5 > d('a','b') + d('b','c') = 2 (row 'a', column 'c')");
    expect(e.detail).toMatchObject({ triple: [0, 1, 2], labels: ['a', 'b', 'c'], direct: 5, via: 2 });
    // infinite direct distance with a finite detour also fails
    expect(mechError(() => parseCustomMetricCsv(',a,b,c\na,0,1,inf\nb,1,0,1\nc,inf,1,0\n'), 'not-a-metric').message).toMatch(/\('a', 'b', 'c'\): d\('a','c'\) = Infinity > .* = 2/);
  });

  it('rejects NaN, negative, asymmetric, non-zero diagonal and non-square matrices', () => {
    expect(mechError(() => parseCustomMetricCsv(',a,b\na,0,NaN\nb,1,0\n', 'n.csv'), 'not-a-metric').message).toBe("n.csv: distance at row 'a', column 'b' is NaN");
    expect(mechError(() => parseCustomMetricCsv(',a,b\na,0,-1\nb,-1,0\n', 'n.csv'), 'not-a-metric').message).toBe("n.csv: distance at row 'a', column 'b' is negative (-1)");
    expect(mechError(() => parseCustomMetricCsv(',a,b\na,0,1\nb,2,0\n', 'n.csv'), 'not-a-metric').message).toBe("n.csv: not symmetric: row 'a', column 'b' is 1 but row 'b', column 'a' is 2");
    expect(mechError(() => parseCustomMetricCsv(',a,b\na,0,1\nb,1,0.5\n', 'n.csv'), 'not-a-metric').message).toBe("n.csv: diagonal distance at row 'b', column 'b' is 0.5, must be 0");
    expect(mechError(() => parseCustomMetricCsv(',a,b,c\na,0,1,1\nb,1,0,1\n', 'n.csv'), 'not-a-metric').message).toBe('n.csv: distance matrix is not square: 3 columns but 2 rows');
    expect(mechError(() => validateMetric(new Matrix(2, 3), ['a', 'b']), 'not-a-metric').message).toMatch(/not square: 2 rows x 3 columns/);
  });

  it('rejects malformed CSV as invalid-input with the line', () => {
    expect(mechError(() => parseCustomMetricCsv(',a,b\na,0,\nb,1,0\n', 'm.csv'), 'invalid-input').message).toBe("m.csv, line 2, column 'b': empty cell");
    expect(mechError(() => parseCustomMetricCsv(',a,b\na,0,x1\nb,1,0\n', 'm.csv'), 'invalid-input').message).toBe("m.csv, line 2, column 'b': 'x1' is not a number");
    expect(mechError(() => parseCustomMetricCsv(',a,b\na,0,1,3\nb,1,0\n', 'm.csv'), 'invalid-input').message).toBe('m.csv, line 2: expected a label and 2 distances, got 4 cells');
    expect(mechError(() => parseCustomMetricCsv(',a,b\nb,0,1\na,1,0\n', 'm.csv'), 'invalid-input').message).toBe("m.csv, line 2: row label 'b' does not match column label 'a'");
    expect(mechError(() => parseCustomMetricCsv('x,a,b\na,0,1\nb,1,0\n', 'm.csv'), 'invalid-input').message).toMatch(/header's first cell must be empty, got 'x'/);
    expect(mechError(() => parseCustomMetricCsv('', 'm.csv'), 'invalid-input').message).toMatch(/m\.csv: empty file/);
    expect(mechError(() => parseCustomMetricCsv(',a,"b\n', 'm.csv'), 'invalid-input').message).toMatch(/malformed CSV/);
    expect(mechError(() => parseCustomMetricCsv(',a,a\na,0,1\na,1,0\n', 'm.csv'), 'invalid-input').message).toMatch(/label 'a' appears twice/);
  });

  it('builds from a Matrix and labels (copying the data)', () => {
    const m = Matrix.fromRows([
      [0, 3],
      [3, 0],
    ]);
    const d = customMetricDomain(m, ['p', 'q']);
    m.data[1] = 7;
    expect(d.distance(0, 1)).toBe(3);
    expect(d.spec).toBe('custom metric on 2 points');
    mechError(() => customMetricDomain(m, ['p', 'q', 'r']), 'invalid-input');
  });
});
