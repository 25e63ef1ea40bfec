/**
 * The optimal LP's card in words (Debian Chromium): with a certified bound it says so; a kept result whose LP
 * stopped before any bound above 0 (injected into the saved project: the time limit came before a pricing round)
 * says there is none yet, never "certified"; the LP's own channel is "private: checked", not "by construction".
 * Screenshots: test-output/screenshots/lp-card-*.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApp, openProjectFile, screenshot, useHarness, writeProject, computeMechanism } from './helpers';
import { projectFileV1 } from '../unit/support/project-fixture';
import { LP_NO_BOUND_YET } from '../unit/support/lp-result-records';

const project = projectFileV1('lp card words', {
  domains: [{ id: 'town', domain: 'grid:3x3:step=1' }],
  mechanisms: [{ id: 'lp', domain: 'town', kind: 'optimal', epsilon: 1, loss: 'dist' }],
});

const h = useHarness({ setup: openApp, timeout: 240_000 });
const shot = (name: string): Promise<void> => screenshot(h.page, `lp-card-${name}`);
const text = async (testid: string): Promise<string> =>
  ((await h.page.getByTestId(testid).textContent()) ?? '').replace(/\s+/g, ' ').trim();

describe('the LP card with and without a bound', () => {
  let file = '';
  it('a solved LP: its bound certified; the cheap construction it returned (it ties the LP here) private by construction', async () => {
    const page = h.page;
    file = writeProject(h, 'lp-words.mechstudio.json', project);
    await openProjectFile(page, file, 'lp card words');
    await computeMechanism(page, 'lp');
    await page.getByTestId('lp-result').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('lp-result').getAttribute('data-chosen')).toBe('tight+remap');
    expect(await text('lp-exact-bound')).toMatch(/^\d\.\d+ km \(certified: no private mechanism does better\)$/);
    expect(await text('mech-guarantee')).toMatch(/^Private by construction at ε = 1 per km\./);
    expect(await page.getByTestId('lp-result').textContent()).toContain('expected loss of what the LP returned');
    await page.getByTestId('lp-result').scrollIntoViewIfNeeded();
    await shot('01-bound');
    await page.getByTestId('cmd-save').click();
    await expect.poll(() => page.getByTestId('toast').textContent()).toContain(`saved ${file}`);
  }, 240_000);

  it("a kept result of the LP's own channel with no bound above 0: no certificate words, private: checked", async () => {
    const page = h.page;
    const saved = JSON.parse(readFileSync(file, 'utf8')) as {
      name: string;
      results: { lp: { result: { lp: Record<string, unknown> } } };
    };
    saved.name = 'lp card no bound';
    Object.assign(saved.results.lp.result.lp, { ...LP_NO_BOUND_YET, history: [] });
    writeFileSync(file, JSON.stringify(saved));
    await openProjectFile(page, file, 'lp card no bound');
    await page.getByTestId('item-mechanism-lp').click();
    await page.getByTestId('lp-result').waitFor({ timeout: 60_000 });
    expect(await text('lp-exact-bound')).toBe(
      'none yet: no bound above 0 was proved before the LP stopped (give it more time)',
    );
    expect(await text('lp-bound')).toBe('none yet (0)');
    expect(await page.getByTestId('lp-result').textContent()).not.toContain(
      'certified: no private mechanism does better',
    );
    expect(await text('mech-guarantee')).toMatch(
      /^Private: checked at ε = 1 per km \(the LP's channel was checked against its privacy constraints; it is not private by construction\)\./,
    );
    await page.getByTestId('lp-result').scrollIntoViewIfNeeded();
    await shot('02-no-bound');
    expect(h.pageErrors).toEqual([]);
  }, 240_000);
});
