import { describe, expect, it } from 'vitest';
import { parseDomainSpec, DOMAIN_SPEC_FORMS } from '../../../../src-worker/metric/parse-domain-spec';
import { diameter, domainLabels } from '../../../../src-worker/metric/domain';
import { mechError } from '../../support/metric-helpers';

const files: Record<string, string> = {
  'g.csv': 'from,to\na,b\nb,c\n',
  'C:\\data\\m.csv': ',x,y\nx,0,2\ny,2,0\n',
  'bad.csv': ',x,y\nx,0,2\ny,3,0\n',
};
const io = {
  readText: (p: string) => {
    const t = files[p];
    if (t === undefined) throw new Error(`ENOENT: no such file '${p}'`);
    return t;
  },
};

describe('parseDomainSpec', () => {
  it('builds every form with the right size, kind and diameter', () => {
    const cases: [string, string, number, number][] = [
      ['line:6', 'line', 6, 5],
      ['ring:6', 'ring', 6, 3],
      ['clique:4', 'clique', 4, 1],
      ['grid:3x4', 'grid', 12, Math.hypot(2, 3)],
      ['grid:3x4:step=0.5:metric=manhattan', 'grid', 12, 2.5],
      ['grid:2x2:metric=chebyshev', 'grid', 4, 1],
      ['hamming:3', 'hamming', 8, 3],
      ['count:5', 'query', 6, 5],
      ['sum:3,2', 'query', 7, 3],
      ['kcount:2,3', 'query', 16, 3],
      ['avg:3,2', 'query', 7, 3],
      ['percentile:4,3,50', 'query', 4, 1],
      ['max:3,2', 'query', 3, 1],
      ['min:3,2', 'query', 3, 1],
      ['argmax:5,3', 'query', 5, 1],
      ['db:3,4', 'database', 64, 3],
      ['db:2,4:metric=manhattan', 'database', 16, 6],
      ['db:2,4:metric=max:absent', 'database', 25, 3],
      ['db:2,4:metric=normalised:absent', 'database', 25, 2],
      ['graph:g.csv', 'graph', 3, 2],
      ['csv:C:\\data\\m.csv', 'custom', 2, 2],
    ];
    for (const [spec, kind, n, diam] of cases) {
      const d = parseDomainSpec(spec, io);
      expect(d.kind, spec).toBe(kind);
      expect(d.n, spec).toBe(n);
      expect(diameter(d), spec).toBeCloseTo(diam, 12);
      expect(d.spec, spec).toBe(spec); // canonical spec round-trips
      const again = parseDomainSpec(d.spec, io);
      expect(domainLabels(again)).toEqual(domainLabels(d));
      for (let i = 0; i < Math.min(d.n, 8); i++)
        for (let j = 0; j < d.n; j++) expect(again.distance(i, j)).toBe(d.distance(i, j));
    }
  });

  it('normalises equivalent spellings to the canonical spec', () => {
    expect(parseDomainSpec(' LINE:6 ').spec).toBe('line:6');
    expect(parseDomainSpec('grid:3X4:metric=manhattan:step=1').spec).toBe('grid:3x4:metric=manhattan');
    expect(parseDomainSpec('grid:3x4:metric=euclidean:step=2').spec).toBe('grid:3x4:step=2');
    expect(parseDomainSpec('db:2,3:absent:metric=normalized').spec).toBe('db:2,3:metric=normalised:absent');
    expect(parseDomainSpec('db:2,3:metric=hamming').spec).toBe('db:2,3');
    expect(parseDomainSpec('percentile:3,2,50.0').spec).toBe('percentile:3,2,50');
  });

  it('rejects unknown and malformed specs with one message listing the accepted forms', () => {
    const unknown = mechError(() => parseDomainSpec('torus:4'), 'invalid-input');
    expect(unknown.message).toBe(`unknown domain 'torus:4'; accepted forms: ${DOMAIN_SPEC_FORMS}`);
    for (const [spec, expected] of [
      ['line:abc', 'line:N'],
      ['line:', 'line:N'],
      ['line', 'line:N'],
      ['line:4:x', 'line:N'],
      ['line:-3', 'line:N'],
      ['line:2.5', 'line:N'],
      ['sum:3', 'sum:U,V'],
      ['kcount:2,3,4', 'kcount:K,U'],
      ['grid:3by4', 'grid:RxC[:step=S][:metric=euclidean|manhattan|chebyshev]'],
      ['grid:3x4:metric=taxicab', 'grid:RxC[:step=S][:metric=euclidean|manhattan|chebyshev]'],
      ['grid:3x4:step=0', 'grid:RxC[:step=S][:metric=euclidean|manhattan|chebyshev] with S a number > 0'],
      ['grid:3x4:step=1:step=2', 'grid:RxC[:step=S][:metric=euclidean|manhattan|chebyshev]'],
      ['db:3', 'db:U,V[:metric=hamming|manhattan|max|normalised][:absent]'],
      ['db:3,4:metric=euclid', 'db:U,V[:metric=hamming|manhattan|max|normalised][:absent]'],
      ['db:3,4:absent:absent', 'db:U,V[:metric=hamming|manhattan|max|normalised][:absent]'],
      ['percentile:3,2,0', 'percentile:U,V,P with P in (0, 100]'],
      ['percentile:3,2,101', 'percentile:U,V,P with P in (0, 100]'],
      ['graph:', 'graph:FILE'],
    ]) {
      const e = mechError(() => parseDomainSpec(spec!, io), 'invalid-input');
      expect(e.message, spec).toBe(
        `malformed domain '${spec}': expected ${expected}; accepted forms: ${DOMAIN_SPEC_FORMS}`,
      );
    }
    expect(mechError(() => parseDomainSpec(''), 'invalid-input').message).toMatch(
      /^empty domain; accepted forms: line:N/,
    );
  });

  it('passes range errors, size limits and file problems through with the spec named', () => {
    expect(mechError(() => parseDomainSpec('line:0'), 'invalid-input').message).toBe(
      "domain 'line:0': line size must be an integer >= 1, got 0",
    );
    expect(mechError(() => parseDomainSpec('db:30,4'), 'too-large').message).toMatch(
      /^domain 'db:30,4': database domain db:30,4 has 4\^30 = 1\.153e\+18 databases; at most 16777216/,
    );
    expect(mechError(() => parseDomainSpec('hamming:40'), 'too-large').message).toMatch(
      /^domain 'hamming:40': Hamming cube of 40 bits/,
    );
    expect(mechError(() => parseDomainSpec('graph:nope.csv', io), 'invalid-input').message).toBe(
      "cannot read edge-list file 'nope.csv': ENOENT: no such file 'nope.csv'",
    );
    expect(mechError(() => parseDomainSpec('csv:bad.csv', io), 'not-a-metric').message).toMatch(
      /^bad\.csv: not symmetric/,
    );
    // default reader is Node's fs
    expect(mechError(() => parseDomainSpec('csv:/nonexistent/dir/m.csv'), 'invalid-input').message).toBe(
      "cannot read distance file '/nonexistent/dir/m.csv': no such file",
    );
  });
});
