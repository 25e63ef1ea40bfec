import { describe, expect, it } from 'vitest';
import { capacityTableRows } from '../../../../src-worker/explorer/capacity-rows';
import { capacityTableCsv } from '../../../../src-shared/explorer/capacity-table';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { lineDomain } from '../../../../src-worker/metric/line';

describe('capacity table (SPEC §6, §7)', () => {
  it('line, eps = ln 2, N = 2..5: vertices, kernels and capacities of SPEC §7', () => {
    const rows = capacityTableRows(
      [2, 3, 4, 5].map((N) => lineDomain(N)),
      Math.LN2,
    );
    expect(rows.map((r) => r.vertices)).toEqual([2, 4, 8, 16]);
    expect(rows.map((r) => r.kernels)).toEqual([1, 2, 11, 187]);
    [4 / 3, 5 / 3, 2, 7 / 3].forEach((m, i) => expect(rows[i]!.multiplicative).toBeCloseTo(m, 12));
    [1 / 3, 1 / 2, 2 / 3, 3 / 4].forEach((a, i) => expect(rows[i]!.additive).toBeCloseTo(a, 12));
    expect(rows.every((r) => r.source === 'kernels')).toBe(true);
  });

  it('too-large rows keep their vertex count and use the injected solver (closed form here)', () => {
    const alpha = 0.5;
    const rows = capacityTableRows([lineDomain(7), cliqueDomain(12)], Math.LN2, {
      solver: (d) => ({ multiplicative: (d.n * (1 - alpha) + 2 * alpha) / (1 + alpha), additive: NaN }),
    });
    expect(rows[0]!.vertices).toBe(64);
    expect(rows[0]!.kernels).toBeNull();
    expect(rows[0]!.source).toBe('lp');
    expect(rows[0]!.multiplicative).toBeCloseTo(3, 12); // (7/2 + 1)/(3/2)
    // the kernel enumeration's limit: sum_{s <= 7} C(64, s) subsets of the 64 vertices
    expect(rows[0]!.note).toEqual({
      kind: 'too-many-subsets',
      domain: 'line:7',
      epsilon: Math.LN2,
      upperBound: 704494192,
      maxSubsets: 50000000,
      vertices: 64,
      n: 7,
    });
    expect(rows[1]!.vertices).toBeNull();
    expect(rows[1]!.note).toEqual({ kind: 'too-many-points', n: 12, limit: 10 });
    const none = capacityTableRows([lineDomain(7)], Math.LN2);
    expect(none[0]!.multiplicative).toBeNull();
    expect(none[0]!.source).toBeNull();
  });

  it('CSV: header, full-precision numbers, empty cells, quoted notes', () => {
    const csv = capacityTableCsv([
      { domain: 'line:3', size: 3, vertices: 4, kernels: 2, multiplicative: 5 / 3, additive: 0.5, source: 'kernels' },
      {
        domain: 'line:7',
        size: 7,
        vertices: 64,
        kernels: null,
        multiplicative: null,
        additive: null,
        source: null,
        note: 'too large, "limit"',
      },
    ]);
    const lines = csv.trimEnd().split('\n');
    expect(lines[0]).toBe('domain,size,vertices,kernels,multiplicative,additive,source,note');
    expect(lines[1]).toBe('line:3,3,4,2,1.66666666666667,0.5,kernels,');
    expect(lines[2]).toBe('line:7,7,64,,,,,"too large, ""limit"""');
    const typed = capacityTableCsv([
      {
        domain: 'clique:12',
        size: 12,
        vertices: null,
        kernels: null,
        multiplicative: null,
        additive: null,
        source: null,
        note: { kind: 'too-many-points', n: 12, limit: 10 },
      },
    ]);
    expect(typed.trimEnd().split('\n')[1]).toBe('clique:12,12,,,,,,n = 12 > 10');
  });
});
