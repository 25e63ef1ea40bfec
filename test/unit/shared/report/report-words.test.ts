/**
 * The study report's verdict words (src-shared/charts/report-words.ts) and page (src-shared/report/report-html.ts):
 * a NOT private finding wins over every other record, an LP with no check is "not checked" (never "private"), a
 * construction is private by construction only at its own guarantee; every text from the project is escaped; a
 * large grid's map is drawn in blocks whose means are the cells'.
 */
import { describe, expect, it } from 'vitest';
import { foundNotPrivate, privacyWords, budgetWords } from '../../../../src-shared/charts/report-words';
import { esc, mapSvg, studyReportHtml } from '../../../../src-shared/report/report-html';
import { buildStudyReport, type ReportMechanism } from '../../../../src-shared/report/study-report';
import { projectSchema } from '../../../../src-shared/protocol/index';

const mech = (over: Partial<ReportMechanism>): ReportMechanism => ({
  id: 'm',
  kind: 'planar-laplace',
  domain: 'd',
  epsilon: 1,
  remap: false,
  state: 'current',
  recheck: { kind: 'not-rechecked', reason: 'no-channel' },
  result: {
    guaranteedEpsilon: 1,
    effectiveEpsilon: 0.9,
    utility: 0.5,
    expectedLoss: 1,
    leakage: 1,
    rows: 4,
    cols: 4,
    exists: true,
    unit: 'km',
  },
  ...over,
});

describe('the report verdict words', () => {
  it('a check that found the channel not private wins over a kept check that says private', () => {
    const m = mech({
      keptCheck: { private: true, effectiveEpsilon: 0.9, epsilon: 1 },
      recheck: { kind: 'checked', check: { private: false, effectiveEpsilon: Infinity, epsilon: 1 } },
    });
    expect(foundNotPrivate(m)).toBe(true);
    expect(privacyWords(m)).toBe(
      'NOT private at ε = 1: the privacy check run for this report measured an effective ε of infinite',
    );
  });
  it('a kept check that says not private is reported even when nothing ran now', () => {
    const m = mech({ keptCheck: { private: false, effectiveEpsilon: 2.5, epsilon: 1 } });
    expect(foundNotPrivate(m)).toBe(true);
    expect(privacyWords(m)).toMatch(/^NOT private at ε = 1: its kept privacy check measured an effective ε of 2.5$/);
  });
  it('an optimal LP with no check is not checked; a construction is private by construction at its guarantee', () => {
    expect(privacyWords(mech({ kind: 'optimal' }))).toMatch(/^not checked: /);
    expect(privacyWords(mech({}))).toBe('private by construction at ε = 1 (not checked)');
    const laplace = mech({ kind: 'laplace', result: { ...mech({}).result!, guaranteedEpsilon: 2 } });
    expect(privacyWords(laplace)).toBe(
      "private by construction at ε = 2 (its construction's guarantee, weaker than the ε = 1 asked for) (not checked)",
    );
    expect(foundNotPrivate(mech({}))).toBe(false);
  });
  it('a budget past its limit says so', () => {
    expect(budgetWords({ population: 'p', releases: 3, spent: 1.5, budget: 1 })).toBe(
      'OVER BUDGET: spent ε = 1.5 of 1',
    );
    expect(budgetWords({ population: 'p', releases: 1, spent: 0.5, budget: null })).toBe(
      'spent ε = 0.5; no budget set',
    );
  });
});

describe('the report page', () => {
  it('escapes every text from the project', () => {
    expect(esc(`<img src=x onerror="a()">&'`)).toBe('&lt;img src=x onerror=&quot;a()&quot;&gt;&amp;&#39;');
    const project = projectSchema.parse({
      version: 1,
      name: '<script>alert(1)</script>',
      domains: [{ id: 'd', domain: 'line:3' }],
      mechanisms: [{ id: 'm', domain: 'd', kind: 'tg', epsilon: 1, description: '<b>x</b>' }],
      releases: [
        {
          mechanism: '<i>m</i>',
          epsilon: 1,
          population: '"><svg onload=x>',
          input: { name: '<a>.csv', size: 1, sha256: 'a'.repeat(64) },
          output: { name: 'o.csv', size: 1, sha256: 'b'.repeat(64) },
          rows: 1,
          randomness: 'crypto',
          date: '2026-01-01',
        },
      ],
    });
    const html = studyReportHtml(buildStudyReport(project, { generatedAt: 'now', tool: 't', files: [], rechecks: {} }));
    expect(html).not.toMatch(/<script>|<svg onload|<i>m<\/i>|<a>\.csv/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
  it('draws a 200 x 200 grid in 2 x 2 blocks whose colours are the block means', () => {
    const values = new Array<number>(200 * 200).fill(0);
    values[0] = 1; // block (0,0) mean 0.25 of vmax 1
    const svg = mapSvg(values, 200, 200, 1, 'm');
    expect(svg.match(/<rect /g)).toHaveLength(100 * 100);
    expect(svg).toContain('drawn in blocks of 2 x 2 cells');
    // heatColor(0.25) is the second stop of the scale
    expect(svg).toContain('<rect x="0" y="0" width="3" height="3" fill="rgb(198,219,239)"/>');
  });
});
