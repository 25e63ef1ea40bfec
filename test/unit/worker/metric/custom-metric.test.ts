import { describe, expect, it } from 'vitest';
import { customMetricDomain, parseCustomMetricCsv, validateMetric } from '../../../../src-worker/metric/custom-metric';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { diameter, domainLabels } from '../../../../src-worker/metric/domain';
import { mechError } from '../../support/metric-helpers';

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
    expect(e.message).toBe(
      "t.csv: triangle inequality fails for ('a', 'b', 'c'): d('a','c') = 5 > d('a','b') + d('b','c') = 2 (row 'a', column 'c')",
    );
    expect(e.detail).toMatchObject({ triple: [0, 1, 2], labels: ['a', 'b', 'c'], direct: 5, via: 2 });
    // infinite direct distance with a finite detour also fails
    expect(
      mechError(() => parseCustomMetricCsv(',a,b,c\na,0,1,inf\nb,1,0,1\nc,inf,1,0\n'), 'not-a-metric').message,
    ).toMatch(/\('a', 'b', 'c'\): d\('a','c'\) = Infinity > .* = 2/);
  });

  it('rejects NaN, negative, asymmetric, non-zero diagonal and non-square matrices', () => {
    const refusals: [csv: string, message: string][] = [
      [',a,b\na,0,NaN\nb,1,0\n', "n.csv: distance at row 'a', column 'b' is NaN"],
      [',a,b\na,0,-1\nb,-1,0\n', "n.csv: distance at row 'a', column 'b' is negative (-1)"],
      [',a,b\na,0,1\nb,2,0\n', "n.csv: not symmetric: row 'a', column 'b' is 1 but row 'b', column 'a' is 2"],
      [',a,b\na,0,1\nb,1,0.5\n', "n.csv: diagonal distance at row 'b', column 'b' is 0.5, must be 0"],
      [',a,b,c\na,0,1,1\nb,1,0,1\n', 'n.csv: distance matrix is not square: 3 columns but 2 rows'],
    ];
    for (const [csv, message] of refusals)
      expect(mechError(() => parseCustomMetricCsv(csv, 'n.csv'), 'not-a-metric').message).toBe(message);
    expect(mechError(() => validateMetric(new Matrix(2, 3), ['a', 'b']), 'not-a-metric').message).toMatch(
      /not square: 2 rows x 3 columns/,
    );
  });

  it('rejects malformed CSV as invalid-input with the line and column, never quoting the content', () => {
    const msg = (text: string) => mechError(() => parseCustomMetricCsv(text, 'm.csv'), 'invalid-input').message;
    expect(msg(',a,b\na,0,\nb,1,0\n')).toBe(
      'm.csv, line 2, column 3: empty cell (expected a distance: a decimal number >= 0 or inf)',
    );
    expect(msg(',a,b\na,0,x1\nb,1,0\n')).toBe(
      'm.csv, line 2, column 3: the cell is not a decimal number (expected a distance: a decimal number >= 0 or inf)',
    );
    expect(msg(',a,b\na,0,1,3\nb,1,0\n')).toBe('m.csv, line 2: expected a label and 2 distances, got 4 cells');
    expect(msg(',a,b\nb,0,1\na,1,0\n')).toBe(
      "m.csv, line 2: the row's label (column 1) differs from the header's label of column 2; rows must come in the header's order",
    );
    expect(msg('x,a,b\na,0,1\nb,1,0\n')).toMatch(/^m\.csv, line 1: the header's first cell must be empty \(layout/);
    expect(msg('')).toMatch(/m\.csv: empty file/);
    expect(msg(',a,"b\n')).toBe(
      'm.csv: malformed CSV at line 1, field 3: a quoted field is not closed before the end of the file',
    );
    // hex, overflow, underflow, Infinity spelled as a number: refused, by column, without the text
    expect(msg(',a,b\na,0,0x1A\nb,0x1A,0\n')).toMatch(/^m\.csv, line 2, column 3: the cell is not a decimal number/);
    expect(msg(',a,b\na,0,1e999\nb,1e999,0\n')).toMatch(
      /^m\.csv, line 2, column 3: the cell is out of the range of a 64-bit float/,
    );
    expect(msg(',a,b\na,0,1e-999\nb,1e-999,0\n')).toMatch(
      /^m\.csv, line 2, column 3: the cell is too small to represent/,
    );
    // a system file's first line never comes back
    const passwd = msg('root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n');
    expect(passwd).not.toMatch(/root|daemon|bin/);
    // duplicate labels: an error naming both rows' lines
    expect(msg(',a,a\na,0,1\na,1,0\n')).toBe(
      'm.csv: duplicate label: columns 2 and 3 of the header (line 1) carry the same label, so the rows of line 2 and line 3 would be the same point twice',
    );
  });

  it('refuses, from the header alone, a metric whose n^3 triangle check is over the limit', () => {
    const n = 2100; // 2100^3 = 9.3e9 > 8e9
    const header = ',' + Array.from({ length: n }, (_, i) => `p${i}`).join(',') + '\n';
    // from the header alone: the body is garbage, so a parse of the rows (or the n^3 check after it) would refuse it
    // otherwise
    const e = mechError(() => parseCustomMetricCsv(header + 'garbage that is never parsed\n', 'big.csv'), 'too-large');
    expect(e.message).toMatch(
      /^distance file 'big\.csv' has 2100 points: checking the triangle inequality takes n\^3 = 9\.26e\+9 steps, over the limit of 8\.0e\+9 \(at most 2000 points\)/,
    );
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
