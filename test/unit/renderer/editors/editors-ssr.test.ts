/**
 * Server-side render of the editors (compiled by the Svelte plugin through a
 * throw-away Vite server): what the user sees for valid and invalid input.
 */
import { describe, expect, it } from 'vitest';
import { useSsrComponents } from '../../support/ssr';

const GRID = '/src-renderer/editors/GridEditor.svelte';
const DATABASE = '/src-renderer/editors/DatabaseEditor.svelte';
const ssr = useSsrComponents([GRID, DATABASE]);

describe('editors (server-side render)', () => {
  it('grid editor shows its fields and the number of locations', () => {
    const html = ssr.html(GRID, {
      form: { kind: 'grid', rows: 20, cols: 30, step: 0.5, metric: 'manhattan' },
      onchange: () => {},
    });
    expect(html).toContain('600 locations');
    expect(html).toContain('manhattan distance × 0.5 km');
    expect(html).not.toContain('field-error');
  });

  it('grid editor shows each validation message in place', () => {
    const html = ssr.html(GRID, {
      form: { kind: 'grid', rows: 0, cols: 2000, step: -1, metric: 'euclidean' },
      onchange: () => {},
    });
    expect(html).toContain('rows must be a whole number ≥ 1');
    expect(html).toContain('at most 1000 columns');
    expect(html).toContain('cell size must be a number > 0');
    expect((html.match(/data-testid="field-error"/g) ?? []).length).toBe(3);
  });

  it('database editor shows the answer graph of the query', () => {
    const initial = { individuals: 3, values: 3, absent: false, metric: 'hamming', query: 'sum', k: 2 };
    const html = ssr.html(DATABASE, { initial, onchange: () => {} });
    expect(html).toContain('7 answers, 11 edges');
    expect(html).toContain('sum:3,2');
  });

  it('database editor refuses an unlistable V^u and shows no graph', () => {
    const initial = { individuals: 40, values: 10, absent: false, metric: 'hamming', query: 'none', k: 2 };
    const html = ssr.html(DATABASE, { initial, onchange: () => {} });
    expect(html).toContain('too many to list; pick a query');
    expect(html).not.toContain('answer-graph');
  });
});
