/**
 * Web mode's one way to save and export (Debian Chromium): Export CSV of a
 * channel too large for the page is a browser download served once by the
 * host; Save is a download of the project (with the channel the app keeps
 * for its optimal LP, in one file); Open uploads it again and the numbers
 * shown are the same; a broken upload is named by the user's file name and
 * never by a file of the server's temp folder. Screenshots:
 * test-output/screenshots/web-files-*.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Download, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openApp, parseChannelCsv, screenshot, useHarness, computeMechanism } from './helpers';
import { projectFileV1 } from '../unit/support/project-fixture';

const N = 250; // 62,500 entries: beyond what a result carries inline, so the host writes the CSV
const project = projectFileV1('files round trip', {
  domains: [
    { id: 'line', domain: `line:${N}` },
    { id: 'town', domain: 'grid:3x3:step=1' },
  ],
  mechanisms: [
    { id: 'tg', domain: 'line', kind: 'tg', epsilon: 0.5 },
    { id: 'lp', domain: 'town', kind: 'optimal', epsilon: 1, loss: 'dist' },
  ],
});

const h = useHarness({ setup: openApp, timeout: 240_000 });
const shot = (name: string): Promise<void> => screenshot(h.page, `web-files-${name}`);

/** Click `testid` and take the download it starts: its suggested name and its text. */
async function downloadOf(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), click()]);
  const file = join(h.tmp, `dl-${Date.now()}`);
  await (d as Download).saveAs(file);
  return { name: d.suggestedFilename(), text: readFileSync(file, 'utf8') };
}

/** Open… → Choose a file, with `file` (its name as the user's). */
async function uploadProject(page: Page, file: string): Promise<void> {
  await page.getByTestId('cmd-open').click();
  if (await page.getByTestId('confirm-dialog').isVisible()) await page.getByTestId('confirm-discard').click();
  await page.getByTestId('path-dialog').waitFor();
  await page.getByTestId('project-upload').setInputFiles(file);
}

/** The numbers the mechanism view shows for `id`. */
async function shown(
  page: Page,
  id: string,
): Promise<{ utility: string | null; effective: string | null; loss: string | null }> {
  await page.getByTestId(`item-mechanism-${id}`).click();
  await page.getByTestId('mechanism-result').waitFor({ timeout: 60_000 });
  const loss = page.getByTestId('expected-loss');
  return {
    utility: await page.getByTestId('utility').textContent(),
    effective: await page.getByTestId('mech-effective').textContent(),
    loss: (await loss.count()) ? await loss.textContent() : null,
  };
}

describe('web mode: downloads and uploads', () => {
  let saved = '';
  let before: { tg: Awaited<ReturnType<typeof shown>>; lp: Awaited<ReturnType<typeof shown>> };

  it('opens a project by upload, exports a large channel CSV and saves the project as downloads', async () => {
    const page = h.page;
    const file = join(h.tmp, 'round trip.mechstudio.json');
    writeFileSync(file, JSON.stringify(project));
    await uploadProject(page, file);
    await shot('01-open');
    await expect
      .poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 })
      .toContain('files round trip');
    await expect.poll(() => page.getByTestId('toast').textContent()).toContain('opened round trip.mechstudio.json');
    // the optimal LP waits for its Compute
    await computeMechanism(page, 'lp');
    await page.getByTestId('lp-result').waitFor({ timeout: 120_000 });
    before = { lp: await shown(page, 'lp'), tg: await shown(page, 'tg') };
    expect(Number(before.tg.utility)).toBeGreaterThan(0);
    expect(before.lp.loss).toMatch(/^\d\.\d+ km$/);

    const csv = await downloadOf(page, () => page.getByTestId('export-csv').click());
    expect(csv.name).toBe('tg-channel.csv');
    const ch = parseChannelCsv(csv.text);
    expect(ch.rows).toHaveLength(N);
    // truncated geometric at eps 0.5: the corner keeps 1/(1 + e^-0.5)
    expect(ch.rows[0]![0]).toBeCloseTo(1 / (1 + Math.exp(-0.5)), 12);
    for (const r of ch.rows.slice(0, 5)) expect(r.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);

    await page.getByTestId('cmd-save-as').click();
    await page.getByTestId('path-dialog').waitFor();
    await shot('02-save');
    const p = await downloadOf(page, () => page.getByTestId('project-download').click());
    expect(p.name).toBe('files-round-trip.mechstudio.json');
    const doc = JSON.parse(p.text) as {
      format: string;
      project: { results: Record<string, unknown> };
      channels: Record<string, string>;
    };
    // the optimal LP's kept channel travels in the one file
    expect(doc.format).toBe('mechstudio-project-bundle');
    expect(Object.keys(doc.channels).filter((n) => n.endsWith('.f64'))).toHaveLength(1);
    expect(Object.keys(doc.project.results).sort()).toEqual(['lp', 'tg']);
    saved = join(h.tmp, p.name);
    writeFileSync(saved, p.text);
    expect(await page.getByTestId('dirty').count()).toBe(0);
  }, 240_000);

  it('re-opened by upload after a restart of the server, it shows the same numbers (the LP from its kept channel, not solved again)', async () => {
    const page = h.page;
    await h.restartServer();
    await page.reload();
    await page.getByTestId('sidebar').waitFor({ timeout: 120_000 });
    // the reload returns to the project, from the copy the download kept in the server's workspace
    await expect
      .poll(() => page.getByTestId('toast').textContent(), { timeout: 60_000 })
      .toContain(`opened ${join(h.tmp, 'mechstudio-projects', 'files-round-trip.mechstudio.json')}`);
    await uploadProject(page, saved);
    await expect
      .poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 })
      .toContain('files round trip');
    expect(await shown(page, 'tg')).toEqual(before.tg);
    expect(await shown(page, 'lp')).toEqual(before.lp);
    expect(await page.getByTestId('not-kept').count()).toBe(0);
    expect(await page.getByTestId('status-lp').getAttribute('data-status')).toBe('done');
    expect(await page.getByTestId('job-row').filter({ hasText: 'optimal mechanism' }).count()).toBe(0);
  }, 240_000);

  it("a broken upload is named by the user's file, never by a file of the server's temp folder", async () => {
    const page = h.page;
    const broken = join(h.tmp, 'broken project.json');
    writeFileSync(broken, '{"version": 1,\n "name": ');
    await uploadProject(page, broken);
    const error = page.getByTestId('path-error');
    await error.waitFor({ timeout: 30_000 });
    const text = (await error.textContent()) ?? '';
    expect(text).toMatch(/^broken project\.json: not valid JSON at line 2/);
    expect(text).not.toContain(tmpdir());
    expect(text).not.toMatch(/mechstudio-web-|\.upload/);
    await page.getByTestId('path-server').click();
    await shot('03-open-error');
    await page.getByTestId('path-cancel').click();
    expect(h.pageErrors).toEqual([]);
  }, 60_000);
});
