/**
 * Charts that read: every case-study chart of the built-in examples drawn in the page, one screenshot each
 * (test-output/screenshots/charts-*.png), with the properties that make them readable asserted on the drawn chart.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { SHOTS, useHarness, openExample, openSmallGeo } from './helpers';

const h = useHarness({
  setup: async (started) => {
    await started.page.goto(started.url);
    await started.page.getByTestId('sidebar').waitFor();
  },
});

async function shootCaseCharts(prefix: string): Promise<number> {
  const page = h.page;
  await page.getByTestId('case-findings').waitFor({ timeout: 120_000 });
  const charts = page.getByTestId('case-chart');
  const n = await charts.count();
  for (let i = 0; i < n; i++) {
    const id = await charts.nth(i).getAttribute('data-chart-id');
    await charts.nth(i).scrollIntoViewIfNeeded();
    await charts.nth(i).screenshot({ path: join(SHOTS, `charts-${prefix}-${id ?? i}.png`) });
  }
  return n;
}

/** Height in CSS px of the drawn chart `id`. */
async function chartBox(id: string): Promise<{ width: number; height: number }> {
  const box = await h.page.locator(`[data-testid="case-chart"][data-chart-id="${id}"]`).boundingBox();
  if (!box) throw new Error(`chart ${id} is not drawn`);
  return box;
}

describe('case-study charts', () => {
  it('registration date: the whole range on a log axis, the three coinciding randomised-response curves as one', async () => {
    await openExample(h.page, 'registration-date', 'egistration');
    await h.page.getByTestId('item-case-study-registration-date').click();
    expect(await shootCaseCharts('regdate')).toBe(2);
  });

  it('geo: the city bar chart with horizontal bars, tall enough for its eleven categories', async () => {
    // the example on a 20 x 20 grid and a 10 x 10 city (a lumpy population), the full-resolution LP within 10 s: the
    // same chart in seconds its data file in the project's own folder (a file outside it would be listed and asked
    // about first)
    await openSmallGeo(h, 'geo-charts.json', 'Geo charts');
    await h.page.getByTestId('item-case-study-geo').click();
    expect(await shootCaseCharts('geo')).toBe(3);
    const city = await chartBox('city-error');
    // 11 categories (grid and mechanism) x 2 series at 26 px each plus title and legend: taller than the 380 px of the
    // others
    expect(city.height).toBe(11 * 26 + 150);
    expect((await chartBox('grid-error')).height).toBeLessThan(city.height);
  });
  it('voting', async () => {
    await openExample(h.page, 'voting', 'Voting');
    await h.page.getByTestId('item-case-study-voting').click();
    expect(await shootCaseCharts('voting')).toBeGreaterThan(0);
  });
  it('database: the randomised-response heat map on 1,024 values shows its diagonal (linear scale from the smallest value)', async () => {
    await openExample(h.page, 'database', 'database of five');
    await h.page.getByTestId('item-mechanism-rr').click();
    const scale = h.page.getByTestId('heatmap-scale');
    await expect.poll(() => scale.getAttribute('data-scale'), { timeout: 60_000 }).toBe('range');
    expect(await scale.textContent()).toMatch(/linear from the smallest value/);
    await h.page.getByTestId('heatmap').screenshot({ path: join(SHOTS, 'charts-database-rr-heatmap.png') });
  });

  it('smart meter', async () => {
    await openExample(h.page, 'smart-meter', 'meter');
    await h.page.getByTestId('item-case-study-smart-meter').click();
    expect(await shootCaseCharts('meter')).toBeGreaterThan(0);
  });
});
