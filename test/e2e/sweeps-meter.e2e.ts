/**
 * Sweeps and the smart meter in the browser: a sweep shows the chosen loss
 * (expected km) against eps, says why points are missing, draws the bound on
 * top and exports every chart; the smart meter keeps the CSV's time and unit,
 * draws a day of 10 s readings as a trace, gives error figures, warns when the
 * release is noise, and answers 0 or 1 levels plainly.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { ROOT, SHOTS, useHarness, setNumberField, newCityGrid, openApp, countPixels } from './helpers';

const h = useHarness({ setup: openApp });

const setNumber = (testid: string, value: number): Promise<void> => setNumberField(h.page, testid, value);

/** Width and height of a PNG (IHDR). */
function pngSize(bytes: Buffer): { w: number; h: number } {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { w: bytes.readUInt32BE(16), h: bytes.readUInt32BE(20) };
}

async function download(locator: Locator, name: string): Promise<{ file: string; suggested: string }> {
  const [d] = await Promise.all([h.page.waitForEvent('download'), locator.click()]);
  const file = join(h.tmp, name);
  await d.saveAs(file);
  return { file, suggested: d.suggestedFilename() };
}

function csvRows(text: string): string[][] {
  return text
    .trim()
    .split('\n')
    .map((l) =>
      l
        .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
        .slice(0, -1)
        .map((c) => c.replace(/,$/, '').replace(/^"(.*)"$/, '$1')),
    );
}

describe('sweeps and the smart meter', () => {
  it('a sweep of expected km against ε: loss plotted and exported, missing points explained, bound on top and attained, every chart exported', async () => {
    const page = h.page;
    await newCityGrid(page, 30, 30);

    await page.getByTestId('add-analysis').click();
    await page.getByTestId('add-sweep').click();
    await page.locator('label.chip', { hasText: 'Planar Laplace' }).click();
    await page.getByTestId('analysis-loss').selectOption('dist');
    await setNumber('sweep-from', 0.5);
    await setNumber('sweep-to', 4);
    await setNumber('sweep-steps', 5);
    await page.getByTestId('run-analysis').click();
    await expect.poll(() => page.getByTestId('sweep-chart').count(), { timeout: 120_000 }).toBe(3);

    // the chosen loss is plotted first, in km
    const charts = page.getByTestId('sweep-chart');
    expect(await charts.nth(0).getAttribute('data-chart-id')).toMatch(/-expected-loss$/);
    const lossLabels = (await charts.nth(0).getAttribute('data-labels'))!.split('\n');
    expect(lossLabels).toHaveLength(3);
    expect(lossLabels[0]).toBe('Exponential (nearer reports likelier)');
    expect(lossLabels[1]).toMatch(/^Tight constraints \(no point for ε [≤=] [\d.]+\)$/);
    expect(lossLabels[2]).toBe('Planar Laplace (grids)');
    // why tight constraints are missing: the engine's note, in the page (and under each chart's title)
    const notes = (await page.getByTestId('sweep-notes').textContent())!;
    expect(notes).toMatch(
      /Tight constraints: no point for ε [≤=] [\d.]+ \(no tight-constraints mechanism exists: its weight at \(\d+,\d+\) would be -[\d.e-]+ < 0\)/,
    );
    // in plain words: no specification notation in the notes
    expect(notes).not.toMatch(/mu Phi|SPEC|§/);
    // the utility bound: dashed black on top, attained by tight constraints
    const util = (await charts.nth(1).getAttribute('data-labels'))!.split('\n');
    expect(util[1]).toMatch(/^Tight constraints \(attains the bound for ε ≥ [\d.]+; no point for ε [≤=] [\d.]+\)$/);
    expect(util[3]).toBe('utility bound (regular prior), attained by Tight constraints');
    // drawn over the curve that attains it: its black dashes are visible (under the curve they were hidden)
    const black = await countPixels(charts.nth(1).locator('canvas'), 'black');
    expect(black.n).toBeGreaterThan(150);
    await charts.nth(0).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'sweeps-meter-sweep-expected-km.png'), fullPage: true });
    await charts.nth(1).screenshot({ path: join(SHOTS, 'sweeps-meter-sweep-utility-bound.png') });

    // CSV of every series: expected km per mechanism, notes, bounds
    const { file: csvFile } = await download(page.getByTestId('sweep-csv'), 'sweep.csv');
    const rows = csvRows(readFileSync(csvFile, 'utf8'));
    const head = rows[0]!;
    const col = (name: string): number => {
      const i = head.indexOf(name);
      expect(i, name).toBeGreaterThanOrEqual(0);
      return i;
    };
    const body = rows.slice(1);
    expect(body).toHaveLength(5);
    expect(body.map((r) => Number(r[0]))).toEqual([0.5, 1.375, 2.25, 3.125, 4]);
    const pl = body.map((r) => Number(r[col('Planar Laplace (grids) expected loss (km)')]));
    for (let k = 1; k < pl.length; k++) expect(pl[k]!).toBeLessThan(pl[k - 1]!);
    // planar Laplace with eps 4 per km on 0.5 km cells: within a few hundred metres, not the grid's size
    expect(pl[4]!).toBeGreaterThan(0.1);
    expect(pl[4]!).toBeLessThan(1);
    const tu = col('Tight constraints utility');
    const ub = col('utility bound');
    const tn = col('Tight constraints note');
    let missing = 0;
    for (const r of body) {
      if (r[tu] === '') {
        missing++;
        expect(r[tn]).toMatch(/no tight-constraints mechanism exists/);
      } else expect(Math.abs(Number(r[tu]) - Number(r[ub]))).toBeLessThan(1e-9);
    }
    expect(missing).toBeGreaterThan(0);
    expect(missing).toBeLessThan(5);

    // PNG of each chart, of all charts, and the toolbar's Export PNG takes all of them
    const sizes = [];
    for (let i = 0; i < 3; i++) {
      const { file, suggested } = await download(charts.nth(i).getByTestId('sweep-png'), `c${i}.png`);
      expect(suggested).toBe(`${await charts.nth(i).getAttribute('data-chart-id')}.png`);
      sizes.push(pngSize(readFileSync(file)));
    }
    const all = pngSize(readFileSync((await download(page.getByTestId('sweep-png-all'), 'all.png')).file));
    expect(all.h).toBe(sizes.reduce((s, x) => s + x.h, 0) + 2 * 16);
    const bar = pngSize(readFileSync((await download(page.getByTestId('cmd-export-png'), 'bar.png')).file));
    expect(bar).toEqual(all);
    expect(h.pageErrors).toEqual([]);
  });

  it('smart meter: a day of 10 s readings with its time axis and unit, drawn as a trace, error figures, a warning when the release is noise, 0/1 levels answered', async () => {
    const page = h.page;
    await page.getByTestId('add-domain').click();
    await page.getByTestId('domain-kind').selectOption('smartmeter');
    await page.getByTestId('trace-file').setInputFiles(join(ROOT, 'resources/data/smart-meter-day.csv'));
    const summary = page.getByTestId('trace-summary');
    await expect.poll(() => summary.textContent()).toContain('8,640 readings from 00:00:00 to 23:59:50, in W');
    expect(await page.getByTestId('domain-text').textContent()).toBe('db:8640,8:metric=max');
    // eps 2 under d-inf over 8,640 readings: 0.00023 per reading, and a warning that says so and what to change
    expect(await page.getByTestId('eps-reading').textContent()).toBe('0.000231');
    const warning = page.getByTestId('noise-warning');
    await warning.waitFor();
    const wt = (await warning.textContent())!;
    expect(wt).toContain('The released trace will be almost pure noise');
    expect(wt).toContain('ε′ = 0.000231 (ε = 2 split over 8,640 readings');
    expect(wt).toContain('raise ε to at least 1,235'); // 8640 / 7, rounded up
    expect(wt).toContain('protect each reading on its own, if that is enough');
    // no notation in the visible words: the metric's symbols and the formulas are tooltips
    expect(wt).not.toMatch(/d∞|d1\b|e\^|·\(v − 1\)/);
    expect(await summary.textContent()).not.toMatch(/d∞|d1\b|u·/);
    // the whole day reads as a trace: an envelope, not a block of 8,640 overdrawn steps
    expect(await page.getByTestId('trace-window').textContent()).toContain(
      '00:00–23:59 (8,640 readings; each point the mean of 22, band min–max)',
    );
    const canvas = page.getByTestId('signature-chart');
    const dark = await countPixels(canvas, 'dark');
    expect(dark.n / dark.total).toBeLessThan(0.06);

    await page.getByTestId('release-trace').click();
    await page.getByTestId('error-figures').waitFor({ timeout: 60_000 });
    const figs = (await page.getByTestId('error-figures').textContent())!;
    expect(figs).toMatch(/mean absolute error [\d.]+ W, RMS error [\d.]+ W/);
    await page.getByTestId('signature-chart').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'sweeps-meter-smart-meter-day.png'), fullPage: true });

    // the figures against a brute-force recomputation from the exported CSV (time column kept, unit in the header)
    const { file } = await download(page.getByTestId('meter-csv'), 'meter.csv');
    const rows = csvRows(readFileSync(file, 'utf8'));
    expect(rows[0]).toEqual(['time', 'true (W)', 'quantised (W)', 'released (W)']);
    expect(rows[1]![0]).toBe('00:00:00');
    expect(rows.at(-1)![0]).toBe('23:59:50');
    let abs = 0;
    let sq = 0;
    for (const r of rows.slice(1)) {
      const e = Number(r[3]) - Number(r[1]);
      abs += Math.abs(e);
      sq += e * e;
    }
    const n = rows.length - 1;
    expect(n).toBe(8640);
    const show = (v: number): string => String(Number(v.toPrecision(3)));
    expect(await page.getByTestId('mae').textContent()).toBe(`${show(abs / n)} W`);
    expect(await page.getByTestId('rmse').textContent()).toBe(`${show(Math.sqrt(sq / n))} W`);

    // zoom in to the readings themselves, then pan
    for (let i = 0; i < 4; i++) await page.getByTestId('zoom-in').click();
    const win = (await page.getByTestId('trace-window').textContent())!;
    expect(win).toContain('(540 readings)');
    expect(win).toContain('showing 11:15–12:44'); // 90 min around noon
    await page.getByTestId('pan-right').click();
    expect(await page.getByTestId('trace-window').textContent()).not.toBe(win);
    await page.screenshot({ path: join(SHOTS, 'sweeps-meter-smart-meter-zoomed.png'), fullPage: true });
    await page.getByTestId('zoom-all').click();

    // d1: each reading gets eps, no warning; the time and unit survive the change (kept in the project)
    await page.getByTestId('trace-metric').selectOption('manhattan');
    await expect.poll(() => page.getByTestId('noise-warning').count()).toBe(0);
    expect(await page.getByTestId('eps-reading').textContent()).toBe('2');
    expect(await summary.textContent()).toContain('from 00:00:00 to 23:59:50, in W');
    // released again with eps 2 per reading: the trace shows through, far closer than the noise release
    const maeNoise = Number((await page.getByTestId('mae').textContent())!.replace(' W', ''));
    await page.getByTestId('release-trace').click();
    await expect
      .poll(async () => Number((await page.getByTestId('mae').textContent())!.replace(' W', '')), { timeout: 60_000 })
      .toBeLessThan(maeNoise / 4);
    await page.getByTestId('signature-chart').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'sweeps-meter-smart-meter-d1.png'), fullPage: true });

    // 0 or 1 levels: a plain message, the trace stays on screen, the domain keeps its valid levels
    for (const lv of [1, 0]) {
      await setNumber('trace-levels', lv);
      await expect
        .poll(() => page.getByTestId('levels-error').textContent())
        .toContain(`${lv} level${lv === 1 ? '' : 's'}: a trace needs at least 2 quantisation levels`);
      expect(await page.getByText('Load a trace').count()).toBe(0);
      expect(await page.getByTestId('signature-chart').count()).toBe(1);
      expect(await page.getByTestId('release-trace').isDisabled()).toBe(true);
      expect(await page.getByTestId('domain-text').textContent()).toBe('db:8640,8:metric=manhattan');
    }
    await page.screenshot({ path: join(SHOTS, 'sweeps-meter-smart-meter-levels.png') });
    await setNumber('trace-levels', 4);
    await expect.poll(() => page.getByTestId('domain-text').textContent()).toBe('db:8640,4:metric=manhattan');
    expect(await page.getByTestId('levels-error').count()).toBe(0);
    expect(h.pageErrors).toEqual([]);
  });

  it('Export PNG of a view with several charts takes all of them (the voting case study)', async () => {
    const page = h.page;
    await page.getByTestId('cmd-examples').click();
    await page.getByTestId('example-voting').click();
    if (await page.getByTestId('confirm-dialog').isVisible()) await page.getByTestId('confirm-discard').click();
    await page.getByTestId('item-case-study-voting').waitFor();
    await expect.poll(() => page.getByTestId('case-chart').count(), { timeout: 60_000 }).toBe(2);
    const heights = await page
      .getByTestId('case-chart')
      .evaluateAll((els) => els.map((e) => (e as unknown as { height: number }).height));
    const { file, suggested } = await download(page.getByTestId('cmd-export-png'), 'case.png');
    expect(suggested).toBe('voting-charts.png');
    expect(pngSize(readFileSync(file)).h).toBe(heights[0]! + heights[1]! + 16);
    expect(h.pageErrors).toEqual([]);
  });
});
