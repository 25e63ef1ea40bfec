/**
 * A tour of the app: every built-in example opened, every item of its sidebar visited (domains, priors, mechanisms,
 * analyses, case studies) and every top-level view (compare, audit, settings, glossary, the jobs panel), one
 * screenshot each in test-output/screenshots/tour-*.png (looked at by the developers). On every page: no developer
 * strings (undefined, NaN, [object ...], key=value, SPEC §n), every badge and status dot says what it means in words,
 * every drawn chart has something drawn on it.
 */
import { describe, expect, it } from 'vitest';
import { countPixels, openApp, screenshot, useHarness, openExample, openSmallGeo } from './helpers';

const h = useHarness({ setup: openApp });

/** Developer strings a page must not show (closed details toggles are not shown text: innerText leaves them out). */
const FORBIDDEN: [string, RegExp][] = [
  ['undefined', /\bundefined\b/],
  ['NaN', /\bNaN\b/],
  ['[object', /\[object /],
  ['SPEC §', /SPEC\s*§/],
  // mathematical identifiers in running text (they belong in a details toggle)
  [
    'maths',
    /eps\s*\*|\bd_inf\b|\bd_h\b|∘|Σ|-expansive|\bnib\b|\bmin z\b|\bz has negative|Phi z|P\(E \||certified-grid|\(worst date\)/,
  ],
  // key=value, except the domain specifications the user typed (shown in their editor and under their name)
  ['key=value', /\b[a-zA-Z_]\w*=[\w.-]/],
];

/** The page's shown text, less the project's domain specifications (e.g. `grid:20x20:step=1`, the user's own input). */
async function shownText(): Promise<string> {
  const page = h.page;
  const text = await page.locator('body').innerText();
  const specs = await page.locator('[data-testid="domain-text"], .sidebar .sub').allInnerTexts();
  return specs
    .filter((s) => s.length)
    .reduce(
      (t, s) => t.split(s).join(' '),
      text.replace(/\b(grid|db|line|ring|clique|hamming|sum|kcount|count|graph|csv):\S+/g, ' '),
    );
}

/**
 * The screenshot `tour-NAME.png`, then the checks every page of the tour passes (`maths`: false for the glossary, the
 * one page that names the notation: bin, nib, d∞, ...).
 */
async function look(name: string, maths = true): Promise<void> {
  const page = h.page;
  await screenshot(page, `tour-${name}`);
  const text = await shownText();
  for (const [what, re] of FORBIDDEN.filter(([w]) => maths || w !== 'maths')) {
    const m = re.exec(text);
    expect(m ? text.slice(Math.max(0, m.index - 60), m.index + 60) : null, `${name}: ${what} shown`).toBeNull();
  }
  // every badge says something; every status dot has its words
  for (const b of await page.locator('.badge:visible').all())
    expect((await b.innerText()).trim().length, `${name}: an empty badge`).toBeGreaterThan(1);
  for (const d of await page.locator('.sidebar .dot').all())
    expect((await d.getAttribute('title'))?.length ?? 0, `${name}: a status dot without words`).toBeGreaterThan(3);
  // every chart drawn: a canvas of some size with something on it
  for (const c of await page.locator('main canvas:visible').all()) {
    const box = await c.boundingBox();
    expect(box && box.width > 20 && box.height > 20, `${name}: a chart of ${JSON.stringify(box)}`).toBe(true);
    const drawn = (await countPixels(c, 'coloured')).n + (await countPixels(c, 'dark')).n;
    expect(drawn, `${name}: an empty chart`).toBeGreaterThan(0);
  }
}

/** Wait until no job is running or queued and the page shows no spinner (two minutes at most). */
async function settle(): Promise<void> {
  const busy = h.page.locator(
    '[data-testid="job-row"][data-status="running"], [data-testid="job-row"][data-status="queued"], main .spinner',
  );
  await expect.poll(() => busy.count(), { timeout: 120_000, interval: 250 }).toBe(0);
}

/** Visit every item in the sidebar (after computing everything when `all`), one screenshot each. */
async function tourItems(prefix: string, all: boolean): Promise<number> {
  const page = h.page;
  if (all) await page.getByTestId('cmd-compute-all').click();
  await settle();
  const ids = (
    await page
      .locator('[data-testid="sidebar"] [data-testid^="item-"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))
  ).filter((x): x is string => x !== null);
  for (const id of ids) {
    await page.getByTestId(id).click();
    await settle();
    // the heat map or the chart draws in the next frames
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    await look(`${prefix}-${id.replace(/^item-/, '')}`);
  }
  return ids.length;
}

describe('a tour of every example and every view', () => {
  it('the city (the start-up example) and the top-level views', async () => {
    const page = h.page;
    expect(await tourItems('city', false)).toBe(12);
    await look('jobs-panel');
    // the Examples menu: every built-in example with its description
    await page.getByTestId('cmd-examples').click();
    expect(await page.getByTestId('examples-menu').locator('button').count()).toBe(11);
    await look('examples-menu');
    await page.getByTestId('cmd-examples').click();
    for (const [cmd, view] of [
      ['cmd-compare', 'compare'],
      ['cmd-audit', 'audit'],
      ['cmd-settings', 'settings'],
      ['cmd-glossary', 'glossary'],
    ] as const) {
      await page.getByTestId(cmd).click();
      await look(`view-${view}`, view !== 'glossary');
    }
    // compare and audit with their results: the comparison of the city's mechanisms, the audit's built-in example
    await page.getByTestId('cmd-compare').click();
    await page.getByTestId('compare-run').click();
    await page.getByTestId('compare-csv').waitFor({ timeout: 120_000 });
    await look('view-compare-result');
    await page.getByTestId('cmd-audit').click();
    await page.getByTestId('audit-example').click();
    await page.getByTestId('audit-verdict').waitFor({ timeout: 120_000 });
    await look('view-audit-result');
    await page.getByTestId('audit-close').click();
  });

  const EXAMPLES: [name: string, title: string, all: boolean, items: number][] = [
    ['voting', 'Voting', true, 0],
    ['database', 'database of five', false, 0],
    ['queries', 'Sum and two-count', true, 0],
    ['smart-meter', 'smart-meter', true, 0],
    ['capacities', 'capacities', false, 0],
    ['leakage-bounds', 'leakage bounds', false, 0],
    ['regular-prior', 'Regular priors', false, 0],
    ['registration-date', 'egistration', false, 0],
    ['sum-and-2count', 'where tight-constraints', false, 0],
  ];
  for (const [name, title, all] of EXAMPLES) {
    it(`example ${name}`, async () => {
      await openExample(h.page, name, title);
      expect(await tourItems(name, all)).toBeGreaterThan(0);
    });
  }

  it('example geo (on a 20 x 20 grid and a 10 x 10 city, the full LP within 10 s)', async () => {
    await openSmallGeo(h, 'geo-tour.json');
    expect(await tourItems('geo', false)).toBeGreaterThan(0);
  });

  it('no page error on the way', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
