/**
 * Web mode's workspace in Chromium (the harness serves its temp folder as the
 * root): a project referring to a file outside its own folder opens a dialog
 * listing that file and is read only after "Read them and open"; Cancel reads
 * nothing; a path outside the root is refused in the path dialog with one
 * line. Screenshots: test-output/screenshots/workspace-*.png.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useHarness, screenshot, openApp, writeProject, choosePath } from './helpers';
import { projectFileV1 } from '../unit/support/project-fixture';

let file: string;
let prior: string;
const h = useHarness({
  setup: async (started) => {
    mkdirSync(join(started.tmp, 'data'), { recursive: true });
    prior = join(started.tmp, 'data', 'prior.csv');
    writeFileSync(prior, '0.5\n0.25\n0.25\n');
    file = writeProject(
      started,
      'refs.mechstudio.json',
      projectFileV1('refers-out', {
        domains: [{ id: 'l', domain: 'line:3' }],
        priors: [{ id: 'p', domain: 'l', prior: 'csv:../data/prior.csv' }],
      }),
    );
    await openApp(started);
  },
  timeout: 240_000,
});

describe('web mode: files outside a project folder and outside the workspace', () => {
  it('lists the files outside the project folder and reads them only when the user agrees', async () => {
    const page = h.page;
    await choosePath(page, 'cmd-open', file, true);
    await page.getByTestId('outside-dialog').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('outside-files').textContent()).toContain(prior);
    await screenshot(page, 'workspace-01-outside-files');
    await page.getByTestId('outside-cancel').click();
    expect(await page.getByTestId('outside-dialog').count()).toBe(0);
    expect(await page.getByTestId('doc-title').textContent()).not.toContain('refers-out');
    await choosePath(page, 'cmd-open', file, true);
    await page.getByTestId('outside-ok').click();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 }).toContain('refers-out');
  });

  it('a path outside the workspace is refused in the path dialog with one line', async () => {
    const page = h.page;
    await choosePath(page, 'cmd-open', '/etc/passwd', true);
    await expect
      .poll(() => page.getByTestId('path-error').textContent(), { timeout: 10_000 })
      .toMatch(/lies outside the workspace folder/);
    await screenshot(page, 'workspace-02-outside-root');
  });
});
