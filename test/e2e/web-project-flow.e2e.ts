/**
 * Web mode's project flow (Debian Chromium): an uploaded project is kept in the server's workspace
 * (mechstudio-projects/ under its root), so a reload returns to it, not to the city example; a download saves it
 * (the header names where it is kept, no "not saved") and a restart of the server and a reload return to it too.
 * Screenshots: test-output/screenshots/web-flow-*.png.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openApp, screenshot, setNumberField, useHarness, STREET_STUDY } from './helpers';

const project = STREET_STUDY;

const h = useHarness({ setup: openApp, timeout: 240_000 });
const shot = (name: string): Promise<void> => screenshot(h.page, `web-flow-${name}`);
const kept = (): string => join(h.tmp, 'mechstudio-projects', 'street.mechstudio.json');

async function uploadProject(page: Page, file: string): Promise<void> {
  await page.getByTestId('cmd-open').click();
  if (await page.getByTestId('confirm-dialog').isVisible()) await page.getByTestId('confirm-discard').click();
  await page.getByTestId('path-dialog').waitFor();
  await page.getByTestId('project-upload').setInputFiles(file);
}

/** Reload and wait until the start-up project is open (the title is not the empty starter's). */
async function reloaded(page: Page): Promise<string> {
  await page.reload();
  await page.getByTestId('sidebar').waitFor({ timeout: 120_000 });
  await page
    .getByTestId('item-mechanism-tg')
    .or(page.getByTestId('doc-title').filter({ hasText: /city|City/ }))
    .first()
    .waitFor({ timeout: 60_000 });
  return (await page.getByTestId('doc-title').textContent()) ?? '';
}

describe('web mode: the project a reload returns to', () => {
  it('an uploaded project is kept on the server: the header names its copy and a reload opens it again', async () => {
    const page = h.page;
    const file = join(h.tmp, 'street.mechstudio.json');
    writeFileSync(file, JSON.stringify(project));
    await uploadProject(page, file);
    await expect
      .poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 })
      .toContain('my street study');
    expect(existsSync(kept())).toBe(true);
    await expect.poll(() => page.getByTestId('doc-path').getAttribute('title')).toBe(kept());
    expect(await page.getByTestId('doc-path').textContent()).toBe('saved: street.mechstudio.json');
    await shot('01-uploaded');
    expect(await reloaded(page)).toContain('my street study');
    expect(await page.getByTestId('doc-path').getAttribute('title')).toBe(kept());
  }, 240_000);

  it('after a download the header says where it is saved, and a restart and a reload return to it with its edits', async () => {
    const page = h.page;
    await page.getByTestId('item-mechanism-tg').click();
    await setNumberField(page, 'mech-epsilon', 0.75);
    await page.getByTestId('dirty').waitFor();
    await page.getByTestId('cmd-save-as').click();
    await page.getByTestId('path-dialog').waitFor();
    const [d] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.getByTestId('project-download').click(),
    ]);
    expect(d.suggestedFilename()).toBe('my-street-study.mechstudio.json');
    await expect
      .poll(() => page.getByTestId('doc-path').getAttribute('title'))
      .toBe(join(h.tmp, 'mechstudio-projects', 'my-street-study.mechstudio.json'));
    expect(await page.getByTestId('dirty').count()).toBe(0);
    expect(await page.getByTestId('doc-path').textContent()).toBe('saved: my-street-study.mechstudio.json');
    expect(await page.title()).toBe('my street study — Mechanism Studio');
    await shot('02-downloaded');
    const copy = JSON.parse(
      readFileSync(join(h.tmp, 'mechstudio-projects', 'my-street-study.mechstudio.json'), 'utf8'),
    ) as typeof project;
    expect(copy.mechanisms[0]!.epsilon).toBe(0.75);
    await h.restartServer();
    expect(await reloaded(page)).toContain('my street study');
    await page.getByTestId('item-mechanism-tg').click();
    await expect.poll(() => page.getByTestId('mech-epsilon').inputValue()).toBe('0.75');
    expect(h.pageErrors).toEqual([]);
  }, 240_000);

  it("a prior CSV's error is shown next to its field, above the grid's map", async () => {
    const page = h.page;
    const grid = {
      ...project,
      name: 'prior errors',
      domains: [{ id: 'town', domain: 'grid:4x4:step=1' }],
      priors: [{ id: 'homes', domain: 'town', prior: 'uniform' }],
      mechanisms: [],
    };
    const file = join(h.tmp, 'prior-errors.json');
    writeFileSync(file, JSON.stringify(grid));
    await uploadProject(page, file);
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 }).toContain('prior errors');
    await page.getByTestId('item-prior-homes').click();
    const csv = join(h.tmp, 'short.csv');
    writeFileSync(csv, '1,2,3\n');
    await page.getByTestId('prior-file').setInputFiles(csv);
    const error = page.getByTestId('field-error');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toMatch(/^short\.csv: /);
    const [e, map] = [await error.boundingBox(), await page.getByTestId('prior-canvas').boundingBox()];
    expect(e!.y + e!.height).toBeLessThan(map!.y);
    await shot('03-prior-error');
  }, 240_000);
});
