/**
 * Kept results are "computed" for every view, in Chromium (web mode): a
 * project of five mechanisms (an optimal LP among them) is computed and
 * saved, the page is reloaded, and Compare takes all five as they were
 * kept: the only job started after the reload is the comparison. Compare's
 * ε starts at the project's (ln 4 here, not 1), the comparison is a project
 * item (the project is marked changed when it runs, it is saved, and after
 * another reload the view shows the table again with its ε as typed), and
 * figures compared side by side carry four significant digits.
 * Screenshots: test-output/screenshots/kept-compare-*.png.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  useHarness,
  screenshot,
  openApp,
  writeProject,
  openProjectFile,
  numberFieldValue,
  computeMechanism,
} from './helpers';
import { projectFileV1 } from '../unit/support/project-fixture';

const LN4 = Math.log(4);
const IDS = ['pl', 'pl-remap', 'tight', 'exp', 'lp'];
let file: string;
const h = useHarness({
  setup: async (started) => {
    file = writeProject(started, 'five.mechstudio.json', fiveMechanisms());
    await openApp(started);
  },
  timeout: 240_000,
});

const shot = (name: string): Promise<void> => screenshot(h.page, `kept-compare-${name}`);
/** Job rows the page dispatched (not the rows a view reads for its heat map). */
const jobRows = (): ReturnType<typeof h.page.locator> =>
  h.page.locator('[data-testid="job-row"]:not([data-transient])');

/** A 6 x 6 town under an uneven prior, five mechanisms at ε = ln 4 per km. */
function fiveMechanisms(): unknown {
  const n = 6;
  const prior = Array.from({ length: n * n }, (_, i) => 1 + ((i * 7) % 5));
  const s = prior.reduce((a, b) => a + b, 0);
  const at = { domain: 'town', epsilon: LN4, prior: 'pop' };
  return projectFileV1('five-kept', {
    domains: [{ id: 'town', name: 'Town 6 x 6', domain: `grid:${n}x${n}:step=0.5` }],
    priors: [{ id: 'pop', domain: 'town', prior: { kind: 'vector', values: prior.map((v) => v / s) } }],
    mechanisms: [
      { id: 'pl', kind: 'planar-laplace', ...at },
      { id: 'pl-remap', kind: 'planar-laplace', ...at, loss: 'dist', remap: true },
      { id: 'tight', kind: 'tight', ...at },
      { id: 'exp', kind: 'exponential', ...at },
      { id: 'lp', kind: 'optimal', ...at, loss: 'dist', lpModel: 'exact' },
    ],
  });
}

describe('kept mechanisms compared after a reopen, with no solve', () => {
  it('computes the five mechanisms and saves them with their checks', async () => {
    const page = h.page;
    await openProjectFile(page, file, 'five-kept');
    await computeMechanism(page, 'lp');
    await page.getByTestId('lp-result').waitFor({ timeout: 120_000 });
    for (const id of IDS)
      await expect
        .poll(() => page.getByTestId(`status-${id}`).getAttribute('data-status'), { timeout: 120_000 })
        .toBe('done');
    await expect
      .poll(async () => (await page.locator('[data-testid="job-row"][data-status="running"]').count()) === 0, {
        timeout: 60_000,
      })
      .toBe(true);
    await page.getByTestId('cmd-save').click();
    await expect.poll(() => page.getByTestId('toast').textContent()).toContain(`saved ${file}`);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as {
      results: Record<string, { check?: { private: boolean } }>;
    };
    expect(Object.keys(saved.results).sort()).toEqual([...IDS].sort());
    for (const id of IDS) expect(saved.results[id]!.check?.private).toBe(true);
  }, 240_000);

  it('after a reload Compare takes all five as kept; the comparison is the only job', async () => {
    const page = h.page;
    await page.reload();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 60_000 }).toContain('five-kept');
    for (const id of IDS)
      await expect
        .poll(() => page.getByTestId(`status-${id}`).getAttribute('data-status'), { timeout: 30_000 })
        .toBe('done');
    await page.getByTestId('cmd-compare').click();
    await page.getByTestId('compare-view').waitFor();
    // ε is the project's, not 1
    await expect.poll(() => numberFieldValue(page, 'compare-eps')).toBeCloseTo(LN4, 12);
    for (const id of IDS) expect(await page.getByTestId(`compare-project-why-${id}`).count()).toBe(0);
    for (const kind of ['planar-laplace', 'planar-laplace+remap', 'exponential', 'exponential+remap', 'tight']) {
      await page.getByTestId(`compare-pick-${kind}`).uncheck();
    }
    for (const id of IDS) await page.getByTestId(`compare-pick-project-${id}`).check();
    expect(await page.getByTestId('dirty').count()).toBe(0);
    await page.getByTestId('compare-run').click();
    const table = page.getByTestId('compare-table');
    await table.waitFor({ timeout: 60_000 });
    const labels = await table.locator('tbody tr td:first-child').allTextContents();
    expect(labels).toEqual(IDS.map((id) => `${id} (project)`));
    // no solve, no construction, no check: the comparison alone ran
    expect(await jobRows().allTextContents()).toEqual([expect.stringContaining('compare 5 mechanisms')]);
    // four significant digits in the expected distance column
    const dist = await table.locator('tbody tr td:nth-child(2)').allTextContents();
    for (const d of dist) expect(d).toMatch(/^(0\.\d{4}|[1-9]\.\d{3}) km$/);
    // the maps side by side (at 1440 px beside the sidebar and the jobs panel: two a row, each at least 200 px), not
    // one under another
    await page.getByTestId('compare-maps').scrollIntoViewIfNeeded();
    await shot('02-maps');
    const boxes = await Promise.all(
      [0, 1, 2].map(async (i) => (await page.getByTestId(`compare-map-${i}`).boundingBox())!),
    );
    expect(boxes[1]!.y).toBeCloseTo(boxes[0]!.y, 0);
    expect(boxes[1]!.x).toBeGreaterThan(boxes[0]!.x + boxes[0]!.width - 1);
    expect(boxes[0]!.width).toBeGreaterThanOrEqual(200);
    expect(boxes[2]!.y).toBeGreaterThan(boxes[0]!.y + boxes[0]!.height - 1);
    await page.getByTestId('compare-table').scrollIntoViewIfNeeded();
    await shot('01-after-reload');
    // a comparison run is a change of the project, saved with it
    await page.getByTestId('dirty').waitFor();
    await page.getByTestId('cmd-save').click();
    await expect.poll(() => page.getByTestId('toast').textContent()).toContain(`saved ${file}`);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as {
      comparisons?: { id: string; epsilonText: string; mechanisms: string[]; kinds: string[] }[];
    };
    expect(saved.comparisons).toEqual([
      expect.objectContaining({ id: 'town', epsilonText: 'ln 4', mechanisms: IDS, kinds: [] }),
    ]);
  }, 240_000);

  it('after another reload the comparison is back: its ε as typed, its table, no job', async () => {
    const page = h.page;
    const before = await page.getByTestId('compare-table').locator('tbody tr').allTextContents();
    await page.reload();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 60_000 }).toContain('five-kept');
    await page.getByTestId('cmd-compare').click();
    await page.getByTestId('compare-table').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('compare-eps').inputValue()).toBe('ln 4');
    expect(await page.getByTestId('compare-table').locator('tbody tr').allTextContents()).toEqual(before);
    expect(await page.getByTestId('compare-stale').count()).toBe(0);
    for (const id of IDS) expect(await page.getByTestId(`compare-pick-project-${id}`).isChecked()).toBe(true);
    expect(await page.getByTestId('dirty').count()).toBe(0);
    expect(await jobRows().count()).toBe(0);
  }, 120_000);
});
