import { describe, expect, it } from 'vitest';
import { useSsrComponents } from '../../../support/ssr';
import { ternaryViewForDomain } from '../../../../../src-worker/explorer/ternary-data';
import { capacityTableRows } from '../../../../../src-worker/explorer/capacity-rows';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { cliqueDomain } from '../../../../../src-worker/metric/clique';

// Server-side render of the explorer's Svelte components (compiled by the
// Svelte plugin through a throw-away Vite server) to check what they draw.
const SIMPLEX = '/src-renderer/views/explorer/SimplexView.svelte';
const CAPACITY = '/src-renderer/views/explorer/CapacityTable.svelte';
const ssr = useSsrComponents([SIMPLEX, CAPACITY]);

const count = (html: string, cls: string) => (html.match(new RegExp(`class="${cls}[ "]`, 'g')) ?? []).length;

describe('explorer components (server-side render)', () => {
  it('SimplexView draws the line-3 privacy type: 4 vertices, 3 corner priors, the kernel posteriors, a legend', () => {
    const data = ternaryViewForDomain(lineDomain(3), Math.LN2);
    const html = ssr.html(SIMPLEX, { data, eps: Math.LN2, oneps: () => {} });
    expect(count(html, 'vertex')).toBe(4);
    expect(count(html, 'corner')).toBe(3);
    expect(count(html, 'posterior')).toBe(data.mechanisms[0]!.posteriors.length);
    expect(count(html, 'private')).toBe(1);
    expect(count(html, 'regular')).toBe(1);
    expect(count(html, 'uniform')).toBe(1);
    expect(html).toContain('uniform prior — regular');
    expect(html).toContain('4 vertices');
    expect((html.match(/<option/g) ?? []).length).toBe(2); // the 2 kernel mechanisms
    expect(html).toMatch(/aria-label="epsilon slider"/);
  });

  it('SimplexView without data or with an error says so', () => {
    expect(ssr.html(SIMPLEX, { data: null, eps: 1 })).toContain('Choose a domain of 3 points');
    expect(ssr.html(SIMPLEX, { data: null, eps: 1, error: 'needs 3 points' })).toContain('needs 3 points');
    const hex = ssr.html(SIMPLEX, { data: ternaryViewForDomain(cliqueDomain(3), Math.LN2), eps: Math.LN2 });
    expect(count(hex, 'vertex')).toBe(6);
  });

  it('CapacityTable lists one row per domain with SPEC §7 numbers and an export button', () => {
    const rows = capacityTableRows(
      [2, 3, 4].map((n) => lineDomain(n)),
      Math.LN2,
    );
    const html = ssr.html(CAPACITY, { rows, eps: Math.LN2, onexport: () => {} });
    expect((html.match(/<tr title/g) ?? []).length).toBe(3);
    expect(html).toContain('line:4');
    expect(html).toContain('>11<'); // kernels of line 4
    expect(html).toContain('>1.66667<'); // 5/3
    expect(html).toContain('Export CSV');
    expect(ssr.html(CAPACITY, { rows: [] })).toContain('No rows yet');
  });
});
