/**
 * An optimal LP kept with its project across a restart of the web-mode
 * server, in Chromium: a 21 x 21 town of 0.5 km cells whose prior is
 * imported from lat/lon points, an LP stopped by its time limit (a result
 * that recomputing would not reproduce), saved; the server is restarted and
 * the page reloaded: the LP's heat map, CSV export and Apply (lat/lon
 * secrets, the map of true vs released) are served from the channel kept
 * beside the project, with no solve; a damaged channel file makes the
 * result say "not kept" (not green). Screenshots: test-output/screenshots/kept-lp-*.png.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  useHarness,
  screenshot,
  openApp,
  writeProject,
  openProjectFile,
  countPixels,
  importPoints,
  computeMechanism,
  downloadTo,
  squareAround,
} from './helpers';
import { seededRandom } from '../../src-shared/numeric/seeded-random';

const N = 21;
const LN4 = Math.log(4);
// a 10.4 km square around (48.85, 2.35): 21 x 21 cells of 0.5 km
const SQUARE = squareAround(48.85, 2.35, 5.2);

let file: string;
let pointsCsv: string;
let secretsCsv: string;
const h = useHarness({
  setup: async (started) => {
    file = writeProject(started, 'town.mechstudio.json', {
      version: 1,
      name: 'kept-lp',
      domains: [{ id: 'town', name: 'Town 21 x 21', domain: `grid:${N}x${N}:step=0.5` }],
      priors: [{ id: 'homes', domain: 'town', prior: 'uniform' }],
      mechanisms: [
        { id: 'lp', domain: 'town', kind: 'optimal', epsilon: LN4, prior: 'homes', loss: 'dist', timeLimitSeconds: 10 },
      ],
      analyses: [],
    });
    // 2,000 homes in three neighbourhoods (lat,lon), and 300 of them as the secrets to release
    const rnd = seededRandom(11);
    const centres: [number, number][] = [
      [0.3, 0.3],
      [0.7, 0.4],
      [0.5, 0.75],
    ];
    const rows: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const [cy, cx] = centres[i % 3]!;
      const fy = Math.min(0.99, Math.max(0.01, cy + (rnd() + rnd() + rnd() - 1.5) * 0.2));
      const fx = Math.min(0.99, Math.max(0.01, cx + (rnd() + rnd() + rnd() - 1.5) * 0.2));
      rows.push(SQUARE.at(fy, fx));
    }
    pointsCsv = join(started.tmp, 'homes.csv');
    writeFileSync(pointsCsv, `lat,lon\n${rows.join('\n')}\n`);
    secretsCsv = join(started.tmp, 'secrets.csv');
    writeFileSync(secretsCsv, `lat,lon\n${rows.slice(0, 300).join('\n')}\n`);
    await openApp(started);
  },
  timeout: 240_000,
});

const shot = (name: string): Promise<void> => screenshot(h.page, `kept-lp-${name}`);
const jobs = (text: string): Promise<number> => h.page.getByTestId('job-row').filter({ hasText: text }).count();
const folder = (): string => file.replace(/\.json$/, '.channels');

describe('an optimal LP kept with its project across a server restart', () => {
  it('imports the prior from lat/lon points, solves the LP to its time limit and saves the channel beside the project', async () => {
    const page = h.page;
    await openProjectFile(page, file, 'kept-lp');
    await importPoints(page, 'homes', SQUARE.box, pointsCsv, 'Imported from homes.csv (2000 points inside)');

    await computeMechanism(page, 'lp');
    const result = page.getByTestId('lp-result');
    await result.waitFor({ timeout: 120_000 });
    expect(await result.getAttribute('data-stopped-by')).toBe('time-limit');
    // 441 x 441 is beyond what the page holds: the heat map comes from the channel the host kept
    await page.getByTestId('large-note').waitFor();
    await page.getByTestId('heatmap').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('privacy-badge').textContent(), { timeout: 60_000 }).toMatch(/private/i);
    expect(await jobs("optimal mechanism 'lp'")).toBe(1);
    await page.getByTestId('cmd-save').click();
    await expect.poll(() => page.getByTestId('toast').textContent()).toContain(`saved ${file}`);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as {
      results: Record<string, { result: { channelRef: string } }>;
      priors: { points?: { file: string; binning: { rows: number; projection: unknown } } }[];
    };
    const ref = saved.results.lp!.result.channelRef;
    expect(readdirSync(folder()).sort()).toEqual([`${ref}.f64`, `${ref}.json`]);
    expect(statSync(join(folder(), `${ref}.f64`)).size).toBe(N * N * N * N * 8);
    expect(saved.priors[0]!.points).toMatchObject({
      file: 'homes.csv',
      binning: { rows: N, projection: { lat0: expect.closeTo(SQUARE.lat0, 9) } },
    });
    await shot('01-computed');
  }, 240_000);

  it('after a restart of the server the heat map, the CSV export and Apply come from the kept channel, with no solve', async () => {
    const page = h.page;
    const objective = await page.getByTestId('lp-objective').textContent();
    await h.restartServer();
    await page.reload();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 60_000 }).toContain('kept-lp');
    await page.getByTestId('item-mechanism-lp').click();
    await page.getByTestId('lp-result').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('lp-objective').textContent()).toBe(objective);
    const heat = page.getByTestId('heatmap');
    await heat.waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await countPixels(heat, 'coloured')).n, { timeout: 30_000 }).toBeGreaterThan(1000);
    expect(await page.getByTestId('not-kept').count()).toBe(0);
    expect(await page.getByTestId('view-error').count()).toBe(0);
    expect(await page.getByTestId('status-lp').getAttribute('data-status')).toBe('done');
    await heat.scrollIntoViewIfNeeded();
    await shot('02-after-restart');
    // the prior's import settings come back with the project (its record), not the grid's defaults
    await page.getByTestId('item-prior-homes').click();
    expect(await page.getByTestId('points-box').inputValue()).toBe(SQUARE.box);
    expect(await page.getByTestId('points-recorded').textContent()).toContain('Imported from homes.csv');
    await page.getByTestId('item-mechanism-lp').click();

    // Export CSV: written by the host from the kept doubles, shown in the jobs panel
    const csv = join(h.tmp, 'lp-channel.csv');
    expect(await downloadTo(page, 'export-csv', csv)).toBe('lp-channel.csv');
    const lines = readFileSync(csv, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(N * N + 1);
    expect(lines[1]!.split(',').length).toBe(N * N + 2); // the quoted label "(0,0)" holds a comma
    expect(await jobs('export channel CSV')).toBe(1);

    // Apply: 300 lat/lon homes released on the cells of the imported prior, with the map of true vs released
    await page.getByTestId('apply-points').waitFor();
    await page.getByTestId('apply-file').setInputFiles(secretsCsv);
    await page.getByTestId('apply-seed').fill('5');
    // line 1 (lat,lon) is a header: said explicitly, as apply --header yes (by content is the default)
    expect(await page.getByTestId('apply-header').inputValue()).toBe('auto');
    await page.getByTestId('apply-header').selectOption('yes');
    const released = join(h.tmp, 'released.csv');
    expect(await downloadTo(page, 'apply-run', released)).toBe('lp-released.csv');
    await page.getByTestId('apply-summary').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('apply-summary').textContent()).toContain('Released 300 rows');
    const out = readFileSync(released, 'utf8').split('\n');
    expect(out[0]).toMatch(/^# NOT FOR RELEASE/);
    expect(out[1]).toBe('released,lat,lon');
    expect(out.filter((l) => l.startsWith('"(')).length).toBe(300);
    await page.getByTestId('apply-true-map').scrollIntoViewIfNeeded();
    expect((await countPixels(page.getByTestId('apply-true-map-canvas'), 'coloured')).n).toBeGreaterThan(200);
    expect((await countPixels(page.getByTestId('apply-released-map-canvas'), 'coloured')).n).toBeGreaterThan(200);
    expect(await jobs("apply 'lp'")).toBe(1);
    await shot('03-apply-latlon');
    // nothing solved the LP again
    expect(await jobs('optimal mechanism')).toBe(0);
  }, 240_000);

  it('a damaged channel file: after a restart the LP result says it is not kept (not green), with the reason', async () => {
    const page = h.page;
    const [dat] = readdirSync(folder()).filter((f) => f.endsWith('.f64'));
    const path = join(folder(), dat!);
    const bytes = readFileSync(path);
    bytes[8] = bytes[8]! ^ 0x40;
    writeFileSync(path, bytes);
    // the app's cache holds a good copy: remove it, so that the project's own (damaged) copy is all there is
    const cache = join(h.tmp, 'config', 'channels');
    for (const f of existsSync(cache) ? readdirSync(cache) : []) writeFileSync(join(cache, f), '');
    await h.restartServer();
    await page.reload();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 60_000 }).toContain('kept-lp');
    await page.getByTestId('item-mechanism-lp').click();
    const notKept = page.getByTestId('not-kept');
    await notKept.waitFor({ timeout: 30_000 });
    expect(await notKept.textContent()).toContain(`the kept channel file ${path} does not match its sha256`);
    expect(await page.getByTestId('status-lp').getAttribute('data-status')).toBe('not-kept');
    expect(await page.getByTestId('heatmap').count()).toBe(0);
    await shot('04-not-kept');
  }, 240_000);
});
