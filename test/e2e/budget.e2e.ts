/**
 * The privacy budget in the Apply view, in Chromium (web mode): a project whose population 'clinic' has spent 0.75
 * of a budget of 1; a release at eps 0.5 is refused with the total stated, nothing downloaded; ticked "Release past
 * the budget", it is released, appended to the project's log (the project unsaved) and saved with it.
 * Screenshots: test-output/screenshots/budget-*.png.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  useHarness,
  screenshot,
  openApp,
  writeProject,
  openProjectFile,
  computeMechanism,
  downloadTo,
} from './helpers';

const file0 = { name: 'old.csv', size: 4, sha256: '0'.repeat(64) };
let file: string;
let secretsCsv: string;
const h = useHarness({
  setup: async (started) => {
    file = writeProject(started, 'study.mechstudio.json', {
      version: 1,
      name: 'budget-study',
      domains: [{ id: 'ages', domain: 'line:5' }],
      mechanisms: [{ id: 'tg', domain: 'ages', kind: 'tg', epsilon: 0.5 }],
      releases: [
        {
          mechanism: 'tg',
          epsilon: 0.75,
          population: 'clinic',
          input: file0,
          output: file0,
          rows: 2,
          randomness: 'crypto',
          date: '2026-01-01T00:00:00.000Z',
        },
      ],
      privacyBudget: { all: 1 },
    });
    secretsCsv = join(started.tmp, 'secrets.csv');
    writeFileSync(secretsCsv, '0\n1\n2\n3\n4\n');
    await openApp(started);
  },
  timeout: 120_000,
});

describe('the privacy budget in the Apply view', () => {
  it('refuses a release past the budget with the total stated, releases it once confirmed, and logs it in the project', async () => {
    const page = h.page;
    await openProjectFile(page, file, 'budget-study');
    await computeMechanism(page, 'tg');
    await page.getByTestId('apply-view').waitFor({ timeout: 60_000 });
    await page.getByTestId('apply-population').fill('clinic');
    await page.getByTestId('apply-file').setInputFiles(secretsCsv);
    const spent = page.getByTestId('apply-spent');
    await expect
      .poll(() => spent.textContent())
      .toBe(
        "Privacy spent on 'clinic': 0.75 over 1 release; this release at eps 0.5 brings it to 1.25 of a budget of 1: past the budget.",
      );
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.getByTestId('apply-run').click();
    await expect
      .poll(() => page.getByTestId('apply-error').textContent())
      .toBe(
        'privacy budget exceeded for \'clinic\': spent 0.75 + this release 0.5 = 1.25 > budget 1: tick "Release past the budget" to release anyway',
      );
    await page.getByTestId('apply-view').scrollIntoViewIfNeeded();
    await screenshot(page, 'budget-01-refused');
    expect(downloads).toBe(0);
    expect(await page.getByTestId('apply-summary').count()).toBe(0);

    await page.getByTestId('apply-over-budget').check();
    await downloadTo(page, 'apply-run', join(h.tmp, 'released.csv'));
    await page.getByTestId('apply-summary').waitFor({ timeout: 60_000 });
    await expect.poll(() => spent.textContent()).toContain("Privacy spent on 'clinic': 1.25 over 2 releases");
    await page.getByTestId('dirty').waitFor();
    await screenshot(page, 'budget-02-released');
    await page.getByTestId('cmd-save').click();
    await expect.poll(() => page.getByTestId('toast').textContent()).toContain(`saved ${file}`);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as {
      releases: { epsilon: number; population: string; rows: number; input: { name: string; size: number } }[];
    };
    expect(saved.releases.map((r) => [r.population, r.epsilon, r.rows])).toEqual([
      ['clinic', 0.75, 2],
      ['clinic', 0.5, 5],
    ]);
    expect(saved.releases[1]!.input).toMatchObject({ name: 'secrets.csv', size: 10 });
  }, 120_000);
});
