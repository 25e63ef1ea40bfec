/**
 * Audits kept with the project, in Chromium (web mode): x,y point samples
 * audited on the project's points grid (a prior imported from points) with
 * the claim typed as "ln 4" (the verdict says "ln 4 ≈ 1.386"); the run marks the project changed, Save writes
 * the audit with the file's name, size and SHA-256 and the claim as typed,
 * and after a reload the view shows it again. A bad released value names the
 * file. Screenshots: test-output/screenshots/audit-kept-*.png.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useHarness, screenshot, openApp, writeProject, openProjectFile } from './helpers';
import { seededRandom } from '../../src-shared/numeric/seeded-random';

const N = 8;
/** The audit's lower bound on the effective ε for these seeded samples (its fixed pseudo-random split). */
const BOUND = '4.541';
const CELL = 0.5;
let file: string;
let samplesCsv: string;
const h = useHarness({
  setup: async (started) => {
    file = writeProject(started, 'audited.mechstudio.json', {
      version: 1,
      name: 'audited',
      domains: [{ id: 'town', name: 'Town 8 x 8', domain: `grid:${N}x${N}:step=${CELL}` }],
      priors: [
        {
          id: 'homes',
          domain: 'town',
          prior: 'uniform',
          points: {
            file: 'homes.csv',
            binning: { rows: N, cols: N, cellKm: CELL, xMin: 0, yMax: N * CELL, projection: null },
            box: null,
            smoothing: 0,
            inside: 640,
            outside: 0,
          },
        },
      ],
      mechanisms: [],
      analyses: [],
    });
    // a vendor's "private" log: the true point 90% of the time, else a uniform point (far more than ln 4 per km)
    const rnd = seededRandom(3);
    const rows = ['secret_x,secret_y,released_x,released_y'];
    const centre = (c: number): number => (c + 0.5) * CELL;
    for (let rep = 0; rep < 120; rep++)
      for (let cell = 0; cell < N * N; cell++) {
        const [r, c] = [Math.floor(cell / N), cell % N];
        const out = rnd() < 0.9 ? cell : Math.floor(rnd() * N * N);
        const [ro, co] = [Math.floor(out / N), out % N];
        rows.push(`${centre(c)},${N * CELL - centre(r)},${centre(co)},${N * CELL - centre(ro)}`);
      }
    samplesCsv = join(started.tmp, 'xy-samples.csv');
    writeFileSync(samplesCsv, rows.join('\n') + '\n');
    await openApp(started);
  },
  timeout: 240_000,
});

const shot = (name: string): Promise<void> => screenshot(h.page, `audit-kept-${name}`);

describe('audits kept with the project', () => {
  it('x,y samples audited on the points grid, claim "ln 4": refuted, marked changed, saved with the file record', async () => {
    const page = h.page;
    await openProjectFile(page, file, 'audited');
    await page.getByTestId('cmd-audit').click();
    await page.getByTestId('audit-view').waitFor();
    await page.getByTestId('audit-points').selectOption('homes');
    expect(await page.getByTestId('audit-domain').count()).toBe(0);
    await page.getByTestId('audit-file').setInputFiles(samplesCsv);
    await page.getByTestId('audit-epsilon').fill('ln 4');
    expect(await page.getByTestId('dirty').count()).toBe(0);
    await page.getByTestId('audit-run').click();
    await expect
      .poll(() => page.getByTestId('audit-verdict').textContent(), { timeout: 60_000 })
      .toMatch(
        /^claim refuted: with 99% confidence the effective ε is at least [\d.]+ per unit of distance, above the claimed ln 4 ≈ 1\.386: /,
      );
    // the claim as typed, its value to 4 significant digits beside it
    expect(await page.getByTestId('audit-verdict').textContent()).toBe(
      `claim refuted: with 99% confidence the effective ε is at least ${BOUND} per unit of distance, above the claimed ln 4 ≈ 1.386: the mechanism protects less than claimed`,
    );
    await page.getByTestId('dirty').waitFor();
    await shot('01-run');
    await page.getByTestId('cmd-save').click();
    await expect.poll(() => page.getByTestId('toast').textContent()).toContain(`saved ${file}`);
    const bytes = readFileSync(samplesCsv);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { audits?: Record<string, unknown>[] };
    expect(saved.audits).toHaveLength(1);
    expect(saved.audits![0]).toMatchObject({
      id: 'audit-1',
      domain: 'grid:8x8:step=0.5',
      pointsPrior: 'homes',
      epsilonText: 'ln 4',
      epsilon: Math.log(4),
      confidence: 0.99,
      file: { name: 'xy-samples.csv', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
      result: { verdict: 'refuted' },
    });
  }, 240_000);

  it('after a reload the view shows the kept audit: the file name, size and SHA-256, the claim as typed, the verdict', async () => {
    const page = h.page;
    const bytes = readFileSync(samplesCsv);
    const verdict = await page.getByTestId('audit-verdict').textContent();
    await page.reload();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 60_000 }).toContain('audited');
    expect(await page.getByTestId('dirty').count()).toBe(0);
    await page.getByTestId('cmd-audit').click();
    await page.getByTestId('audit-verdict').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('audit-verdict').textContent()).toBe(verdict);
    expect(await page.getByTestId('audit-epsilon').inputValue()).toBe('ln 4');
    expect(await page.getByTestId('audit-points').inputValue()).toBe('homes');
    expect(await page.getByTestId('audit-file-name').textContent()).toBe('xy-samples.csv');
    expect(await page.getByTestId('audit-file-size').textContent()).toBe(
      `${bytes.length.toLocaleString('en-US')} bytes`,
    );
    expect(await page.getByTestId('audit-file-sha256').textContent()).toBe(
      createHash('sha256').update(bytes).digest('hex'),
    );
    await shot('02-reloaded');
  }, 120_000);

  it('a bad released value is blamed on the released column, the file named', async () => {
    const page = h.page;
    const bad = join(h.tmp, 'bad-xy.csv');
    writeFileSync(bad, 'secret_x,secret_y,released_x,released_y\n0.25,0.25,0.25,0.25\n0.25,0.25,abc,0.25\n');
    await page.getByTestId('audit-file').setInputFiles(bad);
    await page.getByTestId('audit-run').click();
    const err = page.getByTestId('audit-error');
    await err.waitFor({ timeout: 60_000 });
    expect(await err.textContent()).toBe(
      'samples CSV bad-xy.csv (released), line 3, column x: the value is not a decimal number',
    );
    await shot('03-bad-file');
  }, 120_000);
});
