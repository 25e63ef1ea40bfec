/**
 * Results kept and inputs validated before Compute,
 * web mode in Chromium. A saved project with an optimal LP reopens (by a
 * page reload, which returns to the last project) with its result and no new
 * solve; opening never starts an LP; editors refuse invalid values in plain
 * words and block Compute; a changed input marks the result stale and undo
 * makes it current again; items are renamed and duplicated; the glossary
 * replaces specification references. Screenshots: test-output/screenshots/kept-*.png.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { useHarness, screenshot, openApp, writeProject, openProjectFile, numberFieldValue } from './helpers';
import { projectFileV1 } from '../unit/support/project-fixture';

let file: string;
const LN4 = Math.log(4);
const h = useHarness({
  setup: async (started) => {
    file = writeProject(started, 'kept.mechstudio.json', keptProject());
    // the start-up example first settles (its jobs are not this test's)
    await openApp(started);
  },
  timeout: 240_000,
});

const shot = (name: string): Promise<void> => screenshot(h.page, `kept-${name}`);
/** Job rows in the jobs panel whose label contains `text`. */
const jobs = (text: string): Promise<number> => h.page.getByTestId('job-row').filter({ hasText: text }).count();

/** A 6 x 6 town under an uneven prior: planar Laplace with its measures, and an optimal LP (never solved on open). */
function keptProject(): unknown {
  const n = 6;
  const prior = Array.from({ length: n * n }, (_, i) => 1 + ((i * 7) % 5));
  const s = prior.reduce((a, b) => a + b, 0);
  return projectFileV1('kept-results', {
    domains: [{ id: 'town', name: 'Town 6 x 6', domain: `grid:${n}x${n}:step=0.5` }],
    priors: [{ id: 'pop', domain: 'town', prior: { kind: 'vector', values: prior.map((v) => v / s) } }],
    mechanisms: [
      { id: 'pl', domain: 'town', kind: 'planar-laplace', epsilon: 1, prior: 'pop' },
      { id: 'lp', domain: 'town', kind: 'optimal', epsilon: 1, prior: 'pop', loss: 'dist', lpModel: 'exact' },
    ],
    analyses: [{ id: 'pl-measures', type: 'measure', mechanism: 'pl', loss: 'dist' }],
  });
}

describe('results kept, inputs validated', () => {
  it('opening a project computes the cheap items but never starts the LP', async () => {
    const page = h.page;
    await openProjectFile(page, file, 'kept-results');
    await page.getByTestId('item-mechanism-pl').click();
    await page.getByTestId('heatmap').waitFor({ timeout: 60_000 });
    await page.getByTestId('item-analysis-pl-measures').click();
    // units on the measures: the expected distance error in km, 3 significant digits
    const err = page.getByTestId('measure-distance-error');
    await err.waitFor({ timeout: 60_000 });
    expect(await err.textContent()).toMatch(/^\d\.\d{2} km$|^\d\.\d\d?\d? km$/);
    await page.getByTestId('item-mechanism-lp').click();
    expect(await page.getByTestId('mechanism-result').textContent()).toContain('Not computed yet');
    expect(await jobs("optimal mechanism 'lp'")).toBe(0);
    await shot('01-open-no-lp');
    // its Compute solves it
    await page.getByTestId('compute').click();
    await page.getByTestId('lp-result').waitFor({ timeout: 120_000 });
    expect(await jobs("optimal mechanism 'lp'")).toBe(1);
  });

  it('saving carries the results; a reload returns to the project and shows the LP result without a new solve', async () => {
    const page = h.page;
    const objective = await page.getByTestId('lp-objective').textContent();
    await page.getByTestId('cmd-save').click();
    await expect.poll(() => page.getByTestId('toast').textContent()).toContain(`saved ${file}`);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as {
      results?: Record<string, { hash: string; result: { type: string } }>;
    };
    expect(Object.keys(saved.results ?? {}).sort()).toEqual(['lp', 'pl', 'pl-measures']);
    expect(saved.results!.lp!.result.type).toBe('mechanism');
    expect(saved.results!.lp!.hash).toMatch(/^[0-9a-f]{16}$/);

    await page.reload();
    await page.getByTestId('sidebar').waitFor();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 }).toContain('kept-results');
    expect(await page.getByTestId('doc-path').getAttribute('title')).toBe(file);
    await page.getByTestId('item-mechanism-lp').click();
    await page.getByTestId('lp-result').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('lp-objective').textContent()).toBe(objective);
    expect(await page.getByTestId('stale').count()).toBe(0);
    await page.getByTestId('item-analysis-pl-measures').click();
    await page.getByTestId('measure-distance-error').waitFor();
    // no computation was dispatched by this page: every result came from the file (only rows read for a view)
    expect(await page.locator('[data-testid="job-row"]:not([data-transient])').count()).toBe(0);
    await shot('02-reload-kept');
  });

  it('the level field takes ln 4; level 0 and radius -2 are refused in place and block Compute', async () => {
    const page = h.page;
    await page.getByTestId('item-mechanism-lp').click();
    const level = page.getByTestId('privacy-level');
    await page.getByTestId('privacy-radius').fill('1');
    await level.fill('ln 4');
    await level.dispatchEvent('change');
    await expect.poll(() => numberFieldValue(page, 'mech-epsilon')).toBeCloseTo(LN4, 12);
    // a changed input: the kept result is marked stale, not shown as current
    await page.getByTestId('stale').waitFor();
    await level.fill('0');
    await level.dispatchEvent('change');
    expect(await page.getByTestId('privacy-level-error').textContent()).toBe(
      'privacy level l must be more than 0 (you entered 0)',
    );
    expect(await page.getByTestId('compute').isDisabled()).toBe(true);
    expect(await numberFieldValue(page, 'mech-epsilon')).toBeCloseTo(LN4, 12);
    await page.getByTestId('privacy-radius').fill('-2');
    expect(await page.getByTestId('privacy-radius-error').textContent()).toBe(
      'radius r must be more than 0 km (you entered -2 km)',
    );
    await shot('03-field-errors');
    // fixed: Compute is offered again
    await level.fill('ln(2)*2');
    await level.dispatchEvent('change');
    await page.getByTestId('privacy-radius').fill('1');
    await expect.poll(() => page.getByTestId('compute').isDisabled()).toBe(false);
    // undo goes back to eps = 1: the kept LP result is current again (same inputs, same hash), no solve
    await page.getByTestId('cmd-undo').click();
    await expect.poll(() => numberFieldValue(page, 'mech-epsilon')).toBe(1);
    await expect.poll(() => page.getByTestId('stale').count()).toBe(0);
    await page.getByTestId('lp-result').waitFor();
    await page.getByTestId('cmd-redo').click();
    await page.getByTestId('stale').waitFor();
    await page.getByTestId('cmd-undo').click();
    await expect.poll(() => page.getByTestId('stale').count()).toBe(0);
    expect(await jobs('optimal mechanism')).toBe(0);
  });

  it('an invalid domain edit (1000 x 1000) is not applied, says so, and nothing on the domain is computed', async () => {
    const page = h.page;
    await page.getByTestId('item-domain-town').click();
    // rows 1000 (1000 x 6 is a valid grid and is applied when the field is left), then columns 1000:
    // 10^6 cells is over the editor's limit, so that edit is not applied and the page says what is in force
    for (const f of ['grid-rows', 'grid-cols']) {
      await page.getByTestId(f).fill('1000');
      await page.getByTestId(f).dispatchEvent('change');
    }
    const note = page.getByTestId('domain-not-applied');
    await note.waitFor();
    const inForce = (await page.getByTestId('domain-text').textContent())!;
    expect(inForce).toBe('grid:1000x6:step=0.5');
    expect(await note.textContent()).toContain('the grid has 1000000 cells; at most 250000');
    expect(await note.textContent()).toContain(`The domain in force is still ${inForce}`);
    await page.getByTestId('compute-all').click();
    await expect.poll(() => page.getByTestId('toast').textContent()).toContain('not applied');
    expect(await page.locator('[data-testid="job-row"]:not([data-transient])').count()).toBe(0);
    await shot('04-domain-not-applied');
    // leaving the page discards the draft; undo takes the 1000 x 6 edit back: the kept results are current again
    await page.getByTestId('item-mechanism-pl').click();
    await page.getByTestId('stale').waitFor();
    await page.getByTestId('cmd-undo').click();
    await expect.poll(() => page.getByTestId('stale').count()).toBe(0);
    await page.getByTestId('item-domain-town').click();
    expect(await page.getByTestId('domain-text').textContent()).toBe('grid:6x6:step=0.5');
    expect(await page.getByTestId('domain-not-applied').count()).toBe(0);
  });

  it('renames and duplicates items, results following them; a pasted "hello" is not a metric; the glossary replaces SPEC sections', async () => {
    const page = h.page;
    await page.getByTestId('item-mechanism-pl').hover();
    await page.getByTestId('rename-mechanism-pl').click();
    await page.getByTestId('rename-input').fill('my mech');
    await page.getByTestId('rename-input').press('Enter');
    expect(await page.getByTestId('rename-error').textContent()).toContain('no spaces');
    await page.getByTestId('rename-input').fill('planar');
    await page.getByTestId('rename-input').press('Enter');
    await page.getByTestId('item-mechanism-planar').click();
    await page.getByTestId('heatmap').waitFor();
    await page.getByTestId('item-analysis-pl-measures').click();
    expect(await page.getByTestId('analysis-title').textContent()).toContain('planar');
    await page.getByTestId('measure-distance-error').waitFor();
    expect(await page.getByTestId('stale').count()).toBe(0);
    await page.getByTestId('item-mechanism-lp').hover();
    await page.getByTestId('duplicate-mechanism-lp').click();
    await page.getByTestId('item-mechanism-lp-copy').waitFor();
    await page.getByTestId('lp-result').waitFor();
    expect(await jobs('optimal mechanism')).toBe(0);
    await shot('05-renamed-duplicated');

    await page.getByTestId('add-domain').click();
    await page.getByTestId('domain-kind').selectOption('custom');
    await page.locator('summary').click();
    await page.getByTestId('metric-text').fill('hello');
    await page.getByTestId('metric-apply').click();
    expect(await page.getByTestId('metric-error').textContent()).toContain('no rows of distances');
    expect(await page.getByTestId('domain-text').textContent()).toContain('custom (3 points)');

    // a failed Compute keeps the good result on screen, marked stale, and says it failed
    await page.getByTestId('item-mechanism-planar').click();
    await page.getByTestId('heatmap').waitFor();
    await page.getByTestId('mech-domain').selectOption('grid');
    // its prior belongs to the town: said before Compute, which waits
    expect(await page.getByTestId('prior-problem').textContent()).toContain(
      "the prior 'pop' belongs to another domain",
    );
    expect(await page.getByTestId('compute').isDisabled()).toBe(true);
    await page.locator('label.field:has(> span:text-is("Prior")) select').selectOption('');
    await page.getByTestId('compute').click();
    await page.getByTestId('compute-failed').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('compute-failed').textContent()).toContain('planar Laplace needs a grid domain');
    expect(await page.getByTestId('heatmap').count()).toBe(1);
    expect(await page.getByTestId('stale').count()).toBe(1);
    await shot('06-failed-keeps-result');
    await page.getByTestId('cmd-undo').click();
    await page.getByTestId('cmd-undo').click();
    await expect.poll(() => page.getByTestId('compute-failed').count()).toBe(0);
    expect(await page.getByTestId('stale').count()).toBe(0);

    // an error is about the inputs it was computed for: changing them takes it off the screen
    await page.getByTestId('item-domain-grid').click();
    await page.getByTestId('add-mechanism').click();
    await page.getByTestId('mech-kind').selectOption('planar-laplace');
    await page.getByTestId('compute').click();
    await page.getByTestId('result-error').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('result-error').textContent()).toContain('planar Laplace needs a grid domain');
    await page.getByTestId('mech-kind').selectOption('exponential');
    await expect.poll(() => page.getByTestId('result-error').count()).toBe(0);
    expect(await page.getByTestId('mechanism-result').textContent()).toContain('Not computed yet');

    // an analysis is checked before Run, in plain words; its ε fields take expressions
    await page.getByTestId('item-domain-town').click();
    await page.getByTestId('add-analysis').click();
    await page.getByTestId('add-sweep').click();
    for (const [f, v] of [
      ['sweep-from', '2'],
      ['sweep-to', '1'],
    ] as const) {
      await page.getByTestId(f).fill(v);
      await page.getByTestId(f).dispatchEvent('change');
    }
    expect(await page.getByTestId('analysis-problems').textContent()).toBe('ε from (2) must be smaller than ε to (1)');
    expect(await page.getByTestId('run-analysis').isDisabled()).toBe(true);
    await page.getByTestId('sweep-from').fill('ln(2)/2');
    await page.getByTestId('sweep-from').dispatchEvent('change');
    await expect.poll(() => page.getByTestId('analysis-problems').count()).toBe(0);
    expect(await page.getByTestId('analysis-title').textContent()).toContain(`Sweep ε ${Math.LN2 / 2}–1`);
    await page.getByTestId('sweep-steps').fill('1');
    expect(await page.getByTestId('sweep-steps-error').textContent()).toBe('steps must be at least 2 (you entered 1)');
    expect(await page.getByTestId('run-analysis').isDisabled()).toBe(true);

    await page.getByTestId('cmd-glossary').click();
    await page.getByTestId('glossary-regular').waitFor();
    const text = await page.getByTestId('main').textContent();
    expect(text).not.toMatch(/SPEC|§|mu Phi/);
    await shot('07-glossary');
    expect(h.pageErrors).toEqual([]);
  });
});
