/**
 * The study report from the app, in Chromium (web mode): the kept study of test/integration/report-fixture.ts
 * opened from the server's workspace (its kept results stale: the fixture's hash is not their inputs'), one
 * mechanism computed in the app (current), Report downloads one HTML page whose content is asserted: the page's
 * view of each result (current / stale), every kept channel checked again by the host, the comparison with its
 * chart and maps, the releases, the audit, the budget, the prior file's SHA-256. The page itself is opened in the
 * browser and looked at. Screenshots: test-output/screenshots/report-*.png.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { useHarness, screenshot, openApp, openProjectFile, downloadTo, computeMechanism } from './helpers';
import { EPS, writeStudy, type Study } from '../integration/report-fixture';

let study: Study;
const h = useHarness({
  setup: async (started) => {
    const dir = join(started.tmp, 'projects');
    mkdirSync(dir, { recursive: true });
    study = await writeStudy(dir);
    await openApp(started);
  },
  timeout: 180_000,
});

const holds = (html: string, text: string): void => expect(html.includes(text), `the report lacks: ${text}`).toBe(true);

describe('the study report in the app', () => {
  it('downloads one page with the inputs hashed, each result current or stale, channels checked again, comparison, releases, audit and budget', async () => {
    const page = h.page;
    await openProjectFile(page, study.path, 'Downtown');
    // the one mechanism the study never computed: computed here, so it is current
    await computeMechanism(page, 'later');
    await expect
      .poll(() => page.getByTestId('status-later').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('done');
    const file = join(h.tmp, 'report.html');
    expect(await downloadTo(page, 'cmd-report', file, 120_000)).toBe('Downtown-b-study-b-report.html');
    const html = readFileSync(file, 'utf8');
    // the prior's file as the host read it when the project was opened (the page holds its numbers)
    const prior = readFileSync(join(h.tmp, 'projects', 'prior.csv'));
    holds(
      html,
      `read from <code>prior.csv</code>: ${prior.length} bytes, SHA-256 <code>${createHash('sha256').update(prior).digest('hex')}</code>`,
    );
    holds(html, `SHA-256 ${createHash('sha256').update(readFileSync(study.path)).digest('hex')}`);
    // the page's view of each kept result, and each channel checked again on the host
    const row = (id: string): string =>
      html.slice(html.indexOf(`<b>${id}</b>`), html.indexOf('</tr>', html.indexOf(`<b>${id}</b>`)));
    expect(row('later')).toContain('kept, computed from the current inputs');
    expect(row('later')).toContain('checked for this report');
    for (const id of ['pl', 'tight', 'best']) {
      expect(row(id)).toContain('STALE: its inputs changed after it was computed');
      expect(row(id)).toContain(`private at ε = ${EPS.toPrecision(4)}: checked for this report`);
    }
    holds(html, 'At ε = ln 4 (1.386)');
    holds(html, 'src="data:image/png;base64,');
    expect(html.match(/<svg /g)).toHaveLength(3);
    holds(html, `spent ε = ${(2 * EPS).toPrecision(4)} of 4 `);
    holds(html, 'claim refuted:');
    await page.getByTestId('cmd-report').scrollIntoViewIfNeeded();
    await screenshot(page, 'report-01-app');
    // the page as a reviewer opens it
    await page.goto(pathToFileURL(file).href);
    await page.getByRole('heading', { name: 'Mechanisms' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'report-02-mechanisms');
    await page.getByRole('heading', { name: 'Comparisons' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'report-03-comparison');
  }, 180_000);
});
