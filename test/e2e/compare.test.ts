/**
 * Issue 15 items 2 and 3 in the browser, on a 30 x 30 grid of 0.5 km cells
 * with a two-centre prior: the comparison table (units, "% better than
 * planar Laplace"), the same two mechanisms side by side on the map (km
 * axes, scale bar, legend with values, tooltip on hover, prior overlay, the
 * e^(eps r) circle), and the CSV and PNG exports. Screenshots of the table
 * and the maps go to test-output/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, useHarness, openApp, choosePath } from './helpers';

const h = useHarness({
  setup: async (started) => {
    await started.page.setViewportSize({ width: 1500, height: 1000 });
    await openApp(started);
  },
  timeout: 240_000,
});
const R = 30;

/** Two centres: a big one near (8, 9) and a smaller one near (22, 20), a floor elsewhere. */
function twoCentre(): number[] {
  const w: number[] = [];
  for (let r = 0; r < R; r++)
    for (let c = 0; c < R; c++) w.push(Math.exp(-(Math.hypot(r - 8, c - 9) ** 2) / 18) + 0.6 * Math.exp(-(Math.hypot(r - 22, c - 20) ** 2) / 12) + 0.002);
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

describe('compare mechanisms and map views (issue 15 items 2, 3)', () => {
  it('30 x 30 two-centre prior: table with units and % vs planar Laplace, maps side by side, CSV and PNG', async () => {
    const page = h.page;
    const file = join(h.tmp, 'two-centre.mechstudio.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        name: 'Two centres',
        domains: [{ id: 'city', name: 'City 30 x 30', domain: `grid:${R}x${R}:step=0.5` }],
        priors: [{ id: 'two-centre', domain: 'city', prior: { kind: 'vector', values: twoCentre() } }],
        mechanisms: [],
        analyses: [],
      }),
    );
    await choosePath(page, 'cmd-open', file, true);
    await expect.poll(() => page.getByTestId('doc-title').textContent()).toContain('Two centres');

    await page.getByTestId('cmd-compare').click();
    await page.getByTestId('compare-view').waitFor();
    expect(await page.getByTestId('compare-prior').inputValue()).toBe('two-centre');
    // an invalid eps blocks Compare, in words
    await page.getByTestId('compare-eps').fill('0');
    await expect.poll(() => page.getByTestId('compare-blocked').textContent()).toContain('ε must be a number > 0');
    expect(await page.getByTestId('compare-run').isDisabled()).toBe(true);
    await page.getByTestId('compare-eps').fill('1');
    await page.getByTestId('compare-run').click();
    const table = page.getByTestId('compare-table');
    await table.waitFor({ timeout: 120_000 });

    const head = await table.locator('th').allTextContents();
    expect(head).toEqual([
      'mechanism',
      'expected distance (km)',
      'with remap (km)',
      'P(true cell reported)',
      'leakage (bits)',
      'effective ε per km',
      'vs planar Laplace',
    ]);
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) =>
          Array.from((tr as unknown as { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> }).querySelectorAll('td')).map(
            (td) => td.textContent ?? '',
          ),
        ),
      );
    expect(rows.map((r) => r[0])).toEqual(['Planar Laplace', 'Planar Laplace + remap', 'Tight constraints', 'Exponential', 'Exponential + remap']);
    // tight constraints does not exist on this grid at eps 1 per km: its row says so, the note says why
    expect(rows[2]![1]).toBe('does not exist');
    await expect.poll(() => page.getByTestId('compare-notes').textContent()).toContain('no tight-constraints mechanism exists');
    const pl = rows[0]!;
    const plr = rows[1]!;
    expect(pl[1]).toMatch(/^\d+(\.\d+)? km$/);
    expect(pl[3]).toMatch(/^\d+\.\d%$/);
    expect(pl[4]).toMatch(/ bits$/);
    expect(pl[5]).toMatch(/ \/ km$/);
    expect(Number(pl[5]!.split(' ')[0])).toBeLessThanOrEqual(1);
    expect(pl[6]).toBe('same as planar Laplace');
    // planar Laplace's expected distance is about 2/eps = 2 km on a large enough grid; the remap helps on this prior
    expect(Number(pl[1]!.split(' ')[0])).toBeGreaterThan(1);
    expect(Number(pl[1]!.split(' ')[0])).toBeLessThan(2.2);
    expect(plr[6]).toMatch(/^\d+\.\d% better$/);
    expect(Number(plr[1]!.split(' ')[0])).toBeLessThan(Number(pl[1]!.split(' ')[0]));
    await expect.poll(() => page.getByTestId('compare-baseline').textContent()).toContain(`${pl[1]}`);

    mkdirSync(SHOTS, { recursive: true });
    await page
      .getByTestId('compare-view')
      .locator('table')
      .screenshot({ path: join(SHOTS, 'compare-table.png') });

    // the two mechanisms side by side on the map
    const left = page.getByTestId('compare-map-0');
    const right = page.getByTestId('compare-map-1');
    await left.waitFor();
    await right.waitFor();
    expect(await left.getAttribute('data-axis-km')).toBe('15 x 15');
    expect(await left.getAttribute('data-scale-bar')).toBe('2 km');
    const legend = (await left.getAttribute('data-legend'))!.split(' ').map(Number);
    expect(legend).toHaveLength(5);
    expect(legend[0]).toBe(0);
    expect(legend[4]).toBeGreaterThan(0);
    expect(legend[4]).toBeLessThan(1);
    await expect.poll(() => left.getByTestId('compare-map-0-circle-note').textContent()).toContain('e1 = 2.72');
    expect(await left.getByTestId('compare-map-0-prior-note').isVisible()).toBe(true);
    // hover: cell, position in km, probability and prior
    const canvas = page.getByTestId('compare-map-0-canvas');
    // cell (8, 9): 46 px left margin, 22 px top margin, 300/30 px a cell
    const cell = 300 / 30;
    await canvas.hover({ position: { x: 46 + 9.5 * cell, y: 22 + 8.5 * cell } });
    const tip = page.getByTestId('compare-map-0-tooltip');
    await tip.waitFor();
    const tipText = (await tip.textContent())!;
    expect(tipText).toContain('cell (8,9)');
    expect(tipText).toContain('x 4.75 km, y 10.75 km');
    expect(tipText).toMatch(/P\(report\) = [0-9.e-]+/);
    const prior = twoCentre();
    expect(tipText).toContain(`prior = ${Number(prior[8 * 30 + 9]!.toPrecision(4))}`);
    // side by side, not stacked
    const rb = (await right.boundingBox())!;
    const lb = (await left.boundingBox())!;
    expect(rb.x).toBeGreaterThan(lb.x + lb.width - 1);
    expect(Math.abs(rb.y - lb.y)).toBeLessThan(5);
    await page
      .getByTestId('compare-view')
      .locator('.maps')
      .screenshot({ path: join(SHOTS, 'compare-maps.png') });

    // click a cell: the user moves there (the maps are recomputed for it)
    await canvas.click({ position: { x: 46 + 20.5 * cell, y: 22 + 22.5 * cell } });
    await expect
      .poll(() => page.getByTestId('compare-view').locator('.maps').locator('..').textContent(), { timeout: 60_000 })
      .toContain('a user at cell (22,20)');
    // changed inputs label the table as stale until Compare runs again
    expect(await page.getByTestId('compare-stale').count()).toBe(0);
    await page.getByTestId('compare-eps').fill('2');
    await expect.poll(() => page.getByTestId('compare-stale').textContent()).toContain('it is for ε = 1 per km');
    await page.getByTestId('compare-eps').fill('1');
    await expect.poll(() => page.getByTestId('compare-stale').count()).toBe(0);

    // CSV: one line per mechanism, numbers with units in the header, the same figures as the table
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId('compare-csv').click()]);
    const csvFile = join(h.tmp, 'compare.csv');
    await d.saveAs(csvFile);
    expect(d.suggestedFilename()).toBe('compare.csv');
    const lines = readFileSync(csvFile, 'utf8').trim().split('\n');
    expect(lines[0]).toMatch(/^# compare: grid:30x30:step=0.5, eps 1 per km, loss dist/);
    expect(lines[1]).toBe(
      'mechanism,kind,remap,exists,expected_distance_km,expected_distance_remapped_km,p_true_cell,leakage_bits,effective_eps_per_km,guaranteed_eps_per_km,better_than_planar_laplace_pct,note',
    );
    expect(lines).toHaveLength(2 + 5);
    const plCsv = lines[2]!.split(',');
    expect(plCsv[0]).toBe('Planar Laplace');
    expect(Number(Number(plCsv[4]).toPrecision(3))).toBe(Number(pl[1]!.split(' ')[0]));
    expect(Number(plCsv[10])).toBe(0);
    expect(Number(lines[3]!.split(',')[10])).toBeGreaterThan(0);

    // PNG: the table, the chart and both maps stacked
    const [p] = await Promise.all([page.waitForEvent('download'), page.getByTestId('compare-png').click()]);
    const pngFile = join(h.tmp, 'compare.png');
    await p.saveAs(pngFile);
    const png = readFileSync(pngFile);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.readUInt32BE(20)).toBeGreaterThan(300 + 300); // table + chart + the maps' row
    expect(png.readUInt32BE(16)).toBeGreaterThan(2 * 300); // the two maps side by side
    writeFileSync(join(SHOTS, 'compare-export.png'), png);
    expect(h.pageErrors).toEqual([]);
  }, 180_000);
});
