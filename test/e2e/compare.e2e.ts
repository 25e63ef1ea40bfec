/**
 * The Compare view in the browser. On a 30 x 30 grid of 0.5 km cells with a
 * two-centre prior: the comparison table (units, "% better than planar
 * Laplace"), the mechanisms side by side on the map (km axes, scale bar,
 * legend with values, tooltip on hover, prior overlay, the e^(eps r)
 * circle), and the CSV and PNG exports. On a 20 x 20 grid: mechanisms
 * computed in the project included (a planar Laplace by its construction,
 * an LP by its kept channel), eps typed as ln 4, the comparison's own LP
 * with the editor's options stopped, and the maps on one colour scale, on a
 * grid that wraps. Screenshots go to test-output/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { SHOTS, useHarness, openApp, choosePath, computeMechanism } from './helpers';

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
    for (let c = 0; c < R; c++)
      w.push(
        Math.exp(-(Math.hypot(r - 8, c - 9) ** 2) / 18) +
          0.6 * Math.exp(-(Math.hypot(r - 22, c - 20) ** 2) / 12) +
          0.002,
      );
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

/** The text of every cell of the table's body, row by row. */
function cellTexts(table: Locator): Promise<string[][]> {
  return table
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from(
          (
            tr as unknown as { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> }
          ).querySelectorAll('td'),
        ).map((td) => td.textContent ?? ''),
      ),
    );
}

describe('compare mechanisms and map views', () => {
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
    // an invalid eps blocks Compare, in words under the field
    await page.getByTestId('compare-eps').fill('0');
    await expect
      .poll(() => page.getByTestId('compare-eps-error').textContent())
      .toBe('ε (per km) must be more than 0 (you entered 0)');
    await expect.poll(() => page.getByTestId('compare-blocked').textContent()).toContain('fix ε first');
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
    const rows = await cellTexts(table);
    expect(rows.map((r) => r[0])).toEqual([
      'Planar Laplace',
      'Planar Laplace + remap',
      'Tight constraints',
      'Exponential',
      'Exponential + remap',
    ]);
    // tight constraints does not exist on this grid at eps 1 per km: its row says so, the note says why
    expect(rows[2]![1]).toBe('does not exist');
    await expect
      .poll(() => page.getByTestId('compare-notes').textContent())
      .toMatch(
        /Tight constraints: does not exist at ε = 1: its weights would have to be negative \(smallest -[\d.e-]+ at cell \(\d+,\d+\)\)/,
      );
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

    // the mechanisms side by side on the map (the first two: planar Laplace, with and without the remap)
    const left = page.getByTestId('compare-map-0');
    const right = page.getByTestId('compare-map-1');
    await left.waitFor();
    await right.waitFor();
    expect(await left.getAttribute('data-axis-km')).toBe('15 x 15');
    expect(await left.getAttribute('data-scale-bar')).toBe('2 km');
    const legend = (await page.getByTestId('compare-legend').getAttribute('data-legend'))!.split(' ').map(Number);
    expect(legend).toHaveLength(5);
    expect(legend[0]).toBe(0);
    expect(legend[4]).toBeGreaterThan(0);
    expect(legend[4]).toBeLessThan(1);
    // the notes on the circle and the prior's contours once, under the maps
    await expect.poll(() => page.getByTestId('compare-maps-circle-note').textContent()).toContain('e1 = 2.72');
    expect(await page.getByTestId('compare-maps-prior-note').isVisible()).toBe(true);
    expect(await page.getByTestId('compare-map-0-circle-note').count()).toBe(0);
    // hover: cell, position in km, probability and prior
    const canvas = page.getByTestId('compare-map-0-canvas');
    // cell (8, 9): 46 px left margin, 22 px top margin, the map's side / 30 px a cell (the maps are sized to stand side
    // by side)
    const cell = ((await canvas.boundingBox())!.width - 46 - 12) / 30;
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
      .locator('.maps-row')
      .screenshot({ path: join(SHOTS, 'compare-maps.png') });

    // click a cell: the user moves there (the maps are recomputed for it)
    await canvas.click({ position: { x: 46 + 20.5 * cell, y: 22 + 22.5 * cell } });
    await expect
      .poll(() => page.getByTestId('compare-view').textContent(), { timeout: 60_000 })
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
    expect(Number(Number(plCsv[4]).toPrecision(4))).toBe(Number(pl[1]!.split(' ')[0]));
    expect(Number(plCsv[10])).toBe(0);
    expect(Number(lines[3]!.split(',')[10])).toBeGreaterThan(0);

    // PNG: the table, the chart and the maps (three to a row, the one legend beside them)
    const [p] = await Promise.all([page.waitForEvent('download'), page.getByTestId('compare-png').click()]);
    const pngFile = join(h.tmp, 'compare.png');
    await p.saveAs(pngFile);
    const png = readFileSync(pngFile);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.readUInt32BE(20)).toBeGreaterThan(300 + 300); // table + chart + the maps' row
    expect(png.readUInt32BE(16)).toBeGreaterThan(3 * 200); // three maps side by side, each at least 200 px
    writeFileSync(join(SHOTS, 'compare-export.png'), png);
    expect(h.pageErrors).toEqual([]);
  }, 180_000);

  it('includes mechanisms computed in the project, takes ln 4 as eps, stops its own LP, and draws the maps side by side on one scale', async () => {
    const page = h.page;
    const n = 20;
    // two centres, near (5, 6) and (14, 13)
    const prior = Array.from({ length: n * n }, (_, i) => {
      const [r, c] = [Math.floor(i / n), i % n];
      return (
        Math.exp(-(Math.hypot(r - 5, c - 6) ** 2) / 10) + 0.6 * Math.exp(-(Math.hypot(r - 14, c - 13) ** 2) / 8) + 0.002
      );
    });
    const total = prior.reduce((a, b) => a + b, 0);
    const eps = Math.log(4);
    const file = join(h.tmp, 'computed.mechstudio.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        name: 'Computed mechanisms',
        domains: [{ id: 'town', name: 'Town 20 x 20', domain: `grid:${n}x${n}:step=0.5` }],
        priors: [{ id: 'pop', domain: 'town', prior: { kind: 'vector', values: prior.map((v) => v / total) } }],
        mechanisms: [
          { id: 'pl', domain: 'town', kind: 'planar-laplace', epsilon: eps, prior: 'pop' },
          // an LP ended by its time limit: the host keeps its channel, the comparison takes it by reference
          { id: 'opt', domain: 'town', kind: 'optimal', epsilon: eps, prior: 'pop', loss: 'dist', timeLimitSeconds: 4 },
        ],
        analyses: [],
      }),
    );
    await choosePath(page, 'cmd-open', file, true);
    await expect.poll(() => page.getByTestId('doc-title').textContent()).toContain('Computed mechanisms');
    await page.getByTestId('item-mechanism-pl').click();
    await page.getByTestId('heatmap').waitFor({ timeout: 60_000 });
    await computeMechanism(page, 'opt');
    await page.getByTestId('lp-result').waitFor({ timeout: 120_000 });
    const objective = Number((await page.getByTestId('lp-objective').textContent())!.replace(' km', ''));
    expect(objective).toBeGreaterThan(0);

    await page.getByTestId('cmd-compare').click();
    await page.getByTestId('compare-view').waitFor();
    expect(await page.getByTestId('compare-prior').inputValue()).toBe('pop');
    // the comparison starts at the project's eps (ln 4, its mechanisms'); at 1 the mechanism computed at ln 4 is
    // listed, not included, saying why
    await expect.poll(() => page.getByTestId('compare-eps').inputValue()).toBe('ln 4');
    await page.getByTestId('compare-eps').fill('1');
    await expect.poll(() => page.getByTestId('compare-pick-project-opt').isDisabled()).toBe(true);
    expect(await page.getByTestId('compare-project-why-opt').textContent()).toBe(
      'computed at ε = 1.386 per km; set ε to it to include it',
    );
    // eps is an expression; a bad one says why under the field and blocks Compare
    const epsField = page.getByTestId('compare-eps');
    await epsField.fill('ln');
    await expect
      .poll(() => page.getByTestId('compare-eps-error').textContent())
      .toMatch(/^ε \(per km\): “ln” is not a number or an expression such as ln 4/);
    expect(await page.getByTestId('compare-run').isDisabled()).toBe(true);
    await epsField.fill('ln 4');
    await expect.poll(() => page.getByTestId('compare-eps-error').count()).toBe(0);
    await expect.poll(() => page.getByTestId('compare-pick-project-opt').isDisabled()).toBe(false);
    await page.getByTestId('compare-pick-project-opt').check();
    await page.getByTestId('compare-pick-project-pl').check();
    // new ones: planar Laplace (with and without remap), exponential, and an optimal LP with the editor's options
    for (const k of ['exponential+remap', 'tight']) await page.getByTestId(`compare-pick-${k}`).uncheck();
    await page.getByTestId('compare-pick-optimal').check();
    const options = page.getByTestId('compare-optimal-options');
    await options.getByTestId('lp-time-limit').fill('1/0');
    await expect
      .poll(() => options.getByTestId('lp-field-error').textContent())
      .toContain('the time limit: “1/0” is not a number');
    await expect.poll(() => page.getByTestId('compare-blocked').textContent()).toContain('fix the LP options');
    await options.getByTestId('lp-time-limit').fill('10*60');
    await options.getByTestId('lp-target-gap').fill('1e-4');
    await expect.poll(() => page.getByTestId('compare-blocked').count()).toBe(0);
    await page.getByTestId('compare-view').screenshot({ path: join(SHOTS, 'compare-computed-and-options.png') });

    // Stop ends the comparison's LP with its best mechanism; the comparison completes with it
    await page.getByTestId('compare-run').click();
    await page.getByTestId('compare-stop').click();
    const table = page.getByTestId('compare-table');
    await table.waitFor({ timeout: 120_000 });
    const rows = await cellTexts(table);
    expect(rows.map((r) => r[0])).toEqual([
      'Planar Laplace',
      'Planar Laplace + remap',
      'Exponential',
      'Optimal',
      'pl (project)',
      'opt (project)',
    ]);
    // the project's planar Laplace by its construction: the same figures as the comparison's own
    expect(rows[4]!.slice(1)).toEqual(rows[0]!.slice(1));
    // the project's LP by its kept channel: its expected distance is the LP's objective shown in its editor (3 digits)
    expect(Number(rows[5]![1]!.replace(' km', ''))).toBeCloseTo(objective, 2);
    for (const r of rows)
      if (r[5] !== '—') expect(Number(r[5]!.split(' ')[0])).toBeLessThanOrEqual(Number(eps.toPrecision(3)));
    const notes = (await page.getByTestId('compare-notes').textContent())!;
    expect(notes).toMatch(
      /Optimal: optimised for [\w ()]+, stopped early \(the best private mechanism found so far\): expected loss [\d.]+/,
    );
    expect(notes).not.toContain('opt (project): NOT private');
    await table.screenshot({ path: join(SHOTS, 'compare-with-computed.png') });

    // one map per mechanism, side by side on a grid, one colour scale and one legend
    const maps = page.getByTestId('compare-maps');
    const mapDivs = maps.locator('.map');
    expect(await mapDivs.count()).toBe(6);
    const scales = await mapDivs.evaluateAll((els) =>
      els.map((e) => (e as unknown as { dataset: Record<string, string> }).dataset),
    );
    const legend = page.getByTestId('compare-legend');
    const top = Number(await legend.getAttribute('data-scale-max'));
    expect(top).toBeGreaterThan(0);
    for (const d of scales) {
      expect(Number(d.scaleMax)).toBe(top);
      expect(d.ownLegend).toBe('false');
    }
    expect(await page.getByTestId('compare-view').locator('[data-testid="compare-legend"]').count()).toBe(1);
    const boxes = await Promise.all(
      [0, 1, 2, 3].map(async (i) => (await page.getByTestId(`compare-map-${i}`).boundingBox())!),
    );
    expect(boxes[1]!.x).toBeGreaterThan(boxes[0]!.x + boxes[0]!.width - 1);
    expect(Math.abs(boxes[1]!.y - boxes[0]!.y)).toBeLessThan(5);
    // a grid: the next map starts a row under the first, in its column; the one legend beside the grid
    const row = boxes[2]!.y > boxes[0]!.y + 5 ? 2 : 3;
    expect(Math.abs(boxes[row]!.x - boxes[0]!.x)).toBeLessThan(5);
    expect(boxes[row]!.y).toBeGreaterThan(boxes[0]!.y + boxes[0]!.height - 1);
    const lb = (await legend.boundingBox())!;
    expect(lb.x).toBeGreaterThan(boxes[row - 1]!.x + boxes[row - 1]!.width - 1);
    await page.setViewportSize({ width: 1500, height: 1600 });
    await page
      .getByTestId('compare-view')
      .locator('.maps-row')
      .screenshot({ path: join(SHOTS, 'compare-maps-one-scale.png') });
    // a narrower window: the grid wraps to one map a row, the legend still beside them
    await page.setViewportSize({ width: 1100, height: 1600 });
    await expect
      .poll(async () => {
        const [a, b] = await Promise.all(
          [0, 1].map(async (i) => (await page.getByTestId(`compare-map-${i}`).boundingBox())!),
        );
        return b!.y > a!.y + a!.height - 1 && Math.abs(b!.x - a!.x) < 5;
      })
      .toBe(true);
    const narrow = (await page.getByTestId('compare-map-0').boundingBox())!;
    expect((await legend.boundingBox())!.x).toBeGreaterThan(narrow.x + narrow.width - 1);
    await page
      .getByTestId('compare-view')
      .locator('.maps-row')
      .screenshot({ path: join(SHOTS, 'compare-maps-narrow.png') });
    await page.setViewportSize({ width: 1500, height: 1000 });
    expect(h.pageErrors).toEqual([]);
  }, 240_000);
});
