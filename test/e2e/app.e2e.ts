import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  parseChannelCsv,
  ROOT,
  SHOTS,
  useHarness,
  choosePath,
  newProject,
  setNumberField,
  screenshot,
} from './helpers';

const h = useHarness({
  setup: async (started) => {
    await started.page.goto(started.url);
  },
});

const shot = (name: string): Promise<void> => screenshot(h.page, name);

const setNumber = (testid: string, value: number): Promise<void> => setNumberField(h.page, testid, value);

describe('Mechanism Studio in web mode', () => {
  it('opens on the built-in example with a computed result', async () => {
    const page = h.page;
    await page.getByTestId('sidebar').waitFor();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 60_000 }).toContain('city');
    // the first mechanism of the example is selected and computed on start
    await page.getByTestId('heatmap').waitFor({ timeout: 120_000 });
    await page.getByTestId('privacy-badge').waitFor({ timeout: 120_000 });
    // the rest of the example (measures, checks) finishes in the background
    await expect
      .poll(
        () =>
          page
            .locator('[data-testid="job-row"][data-status="running"], [data-testid="job-row"][data-status="queued"]')
            .count(),
        { timeout: 120_000 },
      )
      .toBe(0);
    expect(await page.locator('[data-testid="job-row"][data-status="error"]').count()).toBe(0);
    await shot('01-start-example');
    // the README's and docs/app.md's screenshot (a tracked file): refreshed on request only, so a test run leaves the
    // tree clean
    if (process.env.MECHSTUDIO_UPDATE_SCREENSHOT === '1' || !existsSync(join(ROOT, 'resources/screenshot.png'))) {
      copyFileSync(join(SHOTS, '01-start-example.png'), join(ROOT, 'resources/screenshot.png'));
    }
  });

  it('creates a grid project and computes planar Laplace and tight constraints', async () => {
    const page = h.page;
    await newProject(page);

    // the grid: 8 x 8 cells of 0.5 km, Euclidean
    await page.getByTestId('item-domain-city').click();
    await setNumber('grid-rows', 8);
    await setNumber('grid-cols', 8);
    await expect.poll(() => page.getByTestId('domain-text').textContent()).toBe('grid:8x8:step=0.5');
    await page.getByTestId('dirty').waitFor();
    await shot('02-grid-editor');

    // planar Laplace at eps = 2 per km (a privacy level of 1 within 0.5 km)
    await page.getByTestId('item-mechanism-planar').click();
    await setNumber('privacy-radius', 0.5);
    await setNumber('privacy-level', 1);
    await expect.poll(() => page.getByTestId('mech-epsilon').inputValue()).toBe('2');
    await page.getByTestId('compute').click();
    await page.getByTestId('heatmap').waitFor({ timeout: 120_000 });
    await page.getByTestId('privacy-badge').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('privacy-badge').textContent()).toContain('✓');
    await shot('03-planar-laplace-heatmap');
    // how it was computed: the typed facts in words (eps 2 per km on cells of 0.5 km is 1 per cell), no notation
    const facts = page.getByTestId('mech-facts');
    await facts.locator('summary').click();
    const factsText = await facts.innerText();
    expect(factsText).toMatch(/ε per cell\s+1\b/);
    expect(factsText).toMatch(/numerical integrations\s+\d+/);
    expect(factsText).not.toMatch(/\b[a-zA-Z_]\w*=[\w.-]|\bundefined\b|\bNaN\b/);
    await shot('03b-planar-laplace-facts');
    await facts.locator('summary').click();

    await page.getByTestId('tab-grid').click();
    await page.getByTestId('grid-distribution').click({ position: { x: 150, y: 150 } });
    await shot('04-planar-laplace-on-grid');
    await page.getByTestId('tab-table').click();
    await page.getByTestId('matrix-table').waitFor();
    await shot('05-planar-laplace-table');

    // tight constraints on the same grid
    await page.getByTestId('add-mechanism').click();
    await page.getByTestId('mech-kind').selectOption('tight');
    await setNumber('mech-epsilon', 2);
    await page.getByTestId('compute').click();
    await expect
      .poll(async () => (await page.getByTestId('heatmap').count()) + (await page.getByTestId('not-exists').count()), {
        timeout: 120_000,
      })
      .toBeGreaterThan(0);
    expect(await page.getByTestId('heatmap').count()).toBe(1);
    await page.getByTestId('privacy-badge').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('privacy-badge').textContent()).toContain('✓');
    await shot('06-tight-heatmap');
  });

  it('exports the planar Laplace channel as a CSV whose numbers are a 2·d-private channel', async () => {
    const page = h.page;
    await page.getByTestId('item-mechanism-planar').click();
    await page.getByTestId('heatmap').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
    const file = join(h.tmp, 'planar.csv');
    await download.saveAs(file);
    const csv = parseChannelCsv(readFileSync(file, 'utf8'));
    expect(csv.rows).toHaveLength(64);
    expect(csv.colLabels).toHaveLength(64);
    expect(csv.rowLabels[9]).toBe('(1,1)');
    // every row is a distribution (SPEC §2: rows sum to 1 within 1e-12)
    for (const r of csv.rows) {
      expect(r).toHaveLength(64);
      for (const v of r) expect(v >= 0 && v <= 1).toBe(true);
      expect(Math.abs(r.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-9);
    }
    // privacy (SPEC §4): ln C[x][y]/C[x'][y] <= eps * d(x, x') for every pair, eps = 2 per km, cells of 0.5 km
    let worst = 0;
    for (let x = 0; x < 64; x++)
      for (let xp = 0; xp < 64; xp++) {
        if (x === xp) continue;
        const d = 0.5 * Math.hypot(Math.floor(x / 8) - Math.floor(xp / 8), (x % 8) - (xp % 8));
        for (let y = 0; y < 64; y++) worst = Math.max(worst, Math.log(csv.rows[x]![y]! / csv.rows[xp]![y]!) / d);
      }
    expect(worst).toBeLessThanOrEqual(2 * (1 + 1e-9));
    expect(worst).toBeGreaterThan(1); // not a trivially flat channel
    // the mass stays near the true cell: P(report own cell) is the largest entry of each interior row
    const r = csv.rows[27]!;
    expect(r.indexOf(Math.max(...r))).toBe(27);

    // and the heat map as a PNG (a real image, not an empty canvas)
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()]);
    const pngFile = join(h.tmp, 'planar.png');
    await png.saveAs(pngFile);
    const bytes = readFileSync(pngFile);
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.suggestedFilename()).toBe('planar-heatmap.png');
    expect(bytes.length).toBeGreaterThan(10_000);
  });

  it('cancels a long job from the jobs panel', async () => {
    const page = h.page;
    // the LP-optimal mechanism on a 24 x 24 grid (576 secrets, a spanner LP
    // that runs for minutes on this machine)
    await page.getByTestId('add-domain').click();
    await setNumber('grid-rows', 24);
    await setNumber('grid-cols', 24);
    await page.getByTestId('add-mechanism').click();
    await page.getByTestId('mech-kind').selectOption('optimal');
    const domainSelect = page.getByTestId('mech-domain');
    const last = await domainSelect.locator('option').last().getAttribute('value');
    await domainSelect.selectOption(last!);
    await setNumber('mech-epsilon', 1);
    await page.getByTestId('compute').click();
    const row = page.getByTestId('job-row').filter({ hasText: 'optimal mechanism' }).first();
    await row.getByTestId('cancel-job').waitFor({ timeout: 30_000 });
    // its first progress came
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 60_000 }).toBe('running');
    await shot('07-jobs-running');
    await row.getByTestId('cancel-job').click();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('cancelled');
    await expect.poll(() => page.getByTestId('result-error').textContent()).toContain('cancelled');
    await shot('08-job-cancelled');
    // leave a cheap construction in its place, so reopening the project later
    // does not start the long LP again
    await page.getByTestId('mech-kind').selectOption('exponential');
  });

  it('saves the project atomically and reopens it', async () => {
    const page = h.page;
    const path = join(h.tmp, 'projects', 'grid.mechstudio.json');
    mkdirSync(join(h.tmp, 'projects'), { recursive: true });
    await choosePath(page, 'cmd-save-as', path);
    await expect.poll(() => existsSync(path)).toBe(true);
    await expect.poll(() => page.getByTestId('dirty').count()).toBe(0);
    const saved = JSON.parse(readFileSync(path, 'utf8')) as {
      domains: { domain: string }[];
      mechanisms: { id: string; kind: string; epsilon: number }[];
    };
    expect(saved.domains[0]!.domain).toBe('grid:8x8:step=0.5');
    expect(saved.mechanisms.map((m) => [m.kind, m.epsilon])).toEqual([
      ['planar-laplace', 2],
      ['tight', 2],
      ['exponential', 1],
    ]);
    expect(saved.mechanisms.slice(0, 2).map((m) => m.id)).toEqual(['planar', 'mechanism']);

    // start over, then open the saved file
    await page.getByTestId('cmd-new').click();
    await expect.poll(() => page.getByTestId('item-mechanism-mechanism').count()).toBe(0);
    await choosePath(page, 'cmd-open', path);
    await page.getByTestId('item-mechanism-mechanism').waitFor();
    expect(await page.getByTestId('doc-path').getAttribute('title')).toBe(path);
    await page.getByTestId('heatmap').waitFor({ timeout: 120_000 });
    await page.getByTestId('cmd-recent').click();
    expect(await page.getByText(path).count()).toBeGreaterThan(0);
    await shot('09-reopened');
    expect(h.pageErrors, h.pageErrors.join('\n')).toEqual([]);
  });

  it('shows the other main views: prior brush, curves against eps, database/query, smart meter, custom metric, explorer', async () => {
    const page = h.page;
    // prior painted with the brush on the 8 x 8 grid
    await page.getByTestId('item-prior-uniform').click();
    const canvas = page.getByTestId('prior-canvas');
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => page.getByTestId('item-prior-uniform').textContent()).toContain('vector');
    await shot('10-prior-brush');

    // utility / leakage / bound curves against eps, comparing mechanisms (sweep job)
    await page.getByTestId('item-domain-city').click();
    await page.getByTestId('add-analysis').click();
    await page.getByTestId('add-sweep').click();
    await page.getByTestId('run-analysis').click();
    await page.getByTestId('sweep-utility').waitFor({ timeout: 120_000 });
    await page.getByTestId('sweep-leakage').waitFor();
    await shot('11-sweep-curves');

    // database and query: sum of 3 values in 0..2 -> answers 0..6, adjacent iff |y - y'| <= 2
    await page.getByTestId('add-domain').click();
    await page.getByTestId('domain-kind').selectOption('database');
    await setNumber('db-individuals', 3);
    await setNumber('db-values', 3);
    await page.getByTestId('db-query').selectOption('sum');
    await page.getByTestId('db-query').dispatchEvent('change');
    await expect.poll(() => page.getByTestId('answer-graph').textContent()).toContain('7 answers, 11 edges');
    await expect.poll(() => page.getByTestId('domain-text').textContent()).toBe('sum:3,2');
    await shot('12-database-query');

    // smart-meter trace: the released signature over the true one
    await page.getByTestId('domain-kind').selectOption('smartmeter');
    await page.getByTestId('release-trace').click();
    await expect
      .poll(
        () => page.getByTestId('job-row').filter({ hasText: 'smart-meter noise' }).first().getAttribute('data-status'),
        { timeout: 60_000 },
      )
      .toBe('done');
    await shot('13-smart-meter');

    // custom metric: a violation is reported in place, naming the triple
    await page.getByTestId('domain-kind').selectOption('custom');
    await page.locator('summary').click();
    await page.getByTestId('metric-text').fill(',a,b,c\na,0,1,3\nb,1,0,1\nc,3,1,0\n');
    await page.getByTestId('metric-apply').click();
    expect(await page.getByTestId('metric-error').textContent()).toContain(
      "triangle inequality fails for ('a', 'b', 'c'): d('a','c') = 3 > d('a','b') + d('b','c') = 2",
    );
    await shot('14-custom-metric-error');

    // privacy-type explorer on a 3-point line
    await page.getByTestId('domain-kind').selectOption('simple');
    await page.locator('input[type=number]').first().fill('3');
    await page.locator('input[type=number]').first().dispatchEvent('change');
    await expect.poll(() => page.getByTestId('domain-text').textContent()).toBe('line:3');
    await page.getByTestId('add-analysis').click();
    await page.getByText('Private posteriors (explorer)').click();
    await page.getByTestId('run-analysis').click();
    await expect.poll(() => page.getByTestId('vertices').textContent(), { timeout: 60_000 }).toBe('4');
    // the explorer's views come from the engine's explorer job: the simplex view names the 4 private-posterior vertices
    await expect.poll(() => page.locator('svg[aria-label^="ternary plot"]').count(), { timeout: 60_000 }).toBe(1);
    await expect.poll(() => page.getByText('private posteriors (4 vertices').count(), { timeout: 60_000 }).toBe(1);
    // the title names the analysis' current domain by its display name, not the id it was created with
    expect(await page.getByTestId('analysis-title').textContent()).toBe('Private posteriors on Line, ε = ln 2');
    await shot('15-explorer');
    expect(h.pageErrors, h.pageErrors.join('\n')).toEqual([]);
  });

  it('offers the autosaved unsaved project back on the next start', async () => {
    // the open page has unsaved edits; a fresh page of the app (same profile) finds the autosave
    await h.page.getByTestId('dirty').waitFor();
    const domains = await h.page.locator('[data-testid^="item-domain-"]').count();
    // a window closed without choosing leaves the autosave in place: the start-up project it opened does not clear it
    const page1b = await h.context.newPage();
    await page1b.goto(h.url);
    await page1b.getByTestId('recovery').waitFor({ timeout: 30_000 });
    await page1b.close();
    const page2 = await h.context.newPage();
    await page2.goto(h.url);
    await page2.getByTestId('recovery').waitFor({ timeout: 30_000 });
    await page2.getByTestId('recovery').getByText('Recover it').click();
    await expect.poll(() => page2.locator('[data-testid^="item-domain-"]').count()).toBe(domains);
    expect(await page2.getByTestId('item-analysis-sweep').count()).toBe(1);
    await page2.getByTestId('dirty').waitFor();
    await page2.screenshot({ path: join(SHOTS, '16-recovered.png') });
    await page2.close();
  });

  it('opens the voting case study from the Examples menu: findings, a chart, a table as CSV; saving keeps caseStudies', async () => {
    const page = h.page;
    await page.getByTestId('cmd-examples').click();
    // every project in resources/examples is offered
    const files = readdirSync(join(ROOT, 'resources/examples')).filter((f) => f.endsWith('.json'));
    await expect.poll(() => page.locator('[data-testid^="example-"]').count()).toBe(files.length);
    for (const f of files) expect(await page.getByTestId(`example-${f.slice(0, -5)}`).count()).toBe(1);
    await shot('17-examples-menu');
    await page.getByTestId('example-voting').click();
    if (await page.getByTestId('confirm-dialog').isVisible()) await page.getByTestId('confirm-discard').click();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 }).toContain('Voting');
    // the example opens on its case study, which runs at once
    await page.getByTestId('item-case-study-voting').waitFor();
    const findings = page.getByTestId('case-findings');
    await findings.waitFor({ timeout: 60_000 });
    // SPEC §7: randomised response on six cities at eps = ln 2 has utility 2/7; TG on the count 4/9
    expect(await findings.textContent()).toContain('0.2857');
    expect(await findings.textContent()).toContain('0.4444');
    expect(await page.getByTestId('case-title').textContent()).toContain('Voting');
    // the charts are drawn in the page (not blank: many coloured pixels)
    const chartsN = await page.getByTestId('case-chart').count();
    expect(chartsN).toBe(2);
    for (let i = 0; i < chartsN; i++) {
      const coloured = await page
        .getByTestId('case-chart')
        .nth(i)
        .evaluate((el) => {
          const c = el as unknown as {
            width: number;
            height: number;
            getContext(t: string): {
              getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
            };
          };
          const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let k = 0; k < d.length; k += 4)
            if (
              d[k + 3]! > 0 &&
              !(d[k]! > 240 && d[k + 1]! > 240 && d[k + 2]! > 240) &&
              Math.max(d[k]!, d[k + 1]!, d[k + 2]!) - Math.min(d[k]!, d[k + 1]!, d[k + 2]!) > 40
            )
              n++;
          return n;
        });
      expect(coloured).toBeGreaterThan(2000);
    }
    await page.getByTestId('case-table').waitFor();
    await shot('18-case-study-voting');
    await page.getByTestId('case-tables').scrollIntoViewIfNeeded();
    await shot('19-case-study-charts-table');
    // the table as CSV: header, then rows whose numbers are utilities in [0, 1]
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-table-csv').click()]);
    const csvFile = join(h.tmp, 'voting-table.csv');
    await download.saveAs(csvFile);
    const lines = readFileSync(csvFile, 'utf8').trim().split('\n');
    const rowsShown = await page.getByTestId('case-table').locator('tbody tr').count();
    expect(lines.length).toBe(rowsShown + 1);
    const head = lines[0]!.split(',');
    expect(head).toEqual(['query', 'mechanism', 'uniform prior', 'non-uniform prior', 'non-uniform prior is']);
    const nums = lines
      .slice(1)
      .flatMap((l) => l.split(',').slice(2, 4))
      .map(Number);
    expect(nums).toHaveLength(6);
    for (const v of nums) expect(v > 0 && v <= 1).toBe(true);
    // full precision in the CSV: RR's 2/7 and TG's 4/9 (SPEC §7)
    expect(nums.some((v) => Math.abs(v - 4 / 9) < 1e-12)).toBe(true);
    expect(nums.some((v) => Math.abs(v - 2 / 7) < 1e-12)).toBe(true);

    // Save As keeps the case studies exactly
    const path = join(h.tmp, 'projects', 'voting.mechstudio.json');
    await choosePath(page, 'cmd-save-as', path);
    await expect.poll(() => existsSync(path)).toBe(true);
    const original = JSON.parse(readFileSync(join(ROOT, 'resources/examples/voting.json'), 'utf8')) as {
      caseStudies: unknown[];
    };
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { caseStudies: unknown[] };
    expect(saved.caseStudies).toEqual(original.caseStudies);
    expect(h.pageErrors, h.pageErrors.join('\n')).toEqual([]);
  });

  it('deletes items: at once when nothing depends on them, after naming the dependents otherwise', async () => {
    const page = h.page;
    const path = join(h.tmp, 'projects', 'voting.mechstudio.json');
    await expect.poll(() => page.getByTestId('dirty').count()).toBe(0);
    // an analysis nothing depends on goes at once
    await page.getByTestId('item-analysis-votes-sweep').hover();
    await page.getByTestId('delete-analysis-votes-sweep').click();
    expect(await page.getByTestId('delete-dialog').count()).toBe(0);
    await expect.poll(() => page.getByTestId('item-analysis-votes-sweep').count()).toBe(0);
    await page.getByTestId('dirty').waitFor();

    // the yes-votes domain takes its priors, mechanisms and analyses with it: the dialog names them
    await page.getByTestId('item-domain-yes-votes').click();
    await page.getByTestId('delete-domain-yes-votes').click();
    await page.getByTestId('delete-dialog').waitFor();
    const text = (await page.getByTestId('delete-text').textContent())!;
    for (const id of [
      'uniform-votes',
      'close-race',
      'votes-tg',
      'votes-tight',
      'votes-optimal-close-race',
      'tg-close-race',
      'tg-check',
      'votes-capacity',
      'votes-vertices',
    ])
      expect(text).toContain(`‘${id}’`);
    expect(text).not.toContain('cities');
    await shot('20-delete-confirm');
    // Cancel keeps everything
    await page.getByTestId('delete-cancel').click();
    expect(await page.getByTestId('item-domain-yes-votes').count()).toBe(1);
    await page.getByTestId('delete-domain-yes-votes').click();
    await page.getByTestId('delete-confirm').click();
    await expect.poll(() => page.getByTestId('item-domain-yes-votes').count()).toBe(0);
    for (const id of ['votes-tg', 'votes-tight'])
      expect(await page.getByTestId(`item-mechanism-${id}`).count()).toBe(0);
    expect(await page.getByTestId('item-mechanism-cities-rr').count()).toBe(1);
    expect(await page.getByTestId('item-analysis-rr-uniform').count()).toBe(1);
    await shot('21-after-delete');

    // saved: a valid project whose references all resolve, case studies untouched
    await page.getByTestId('cmd-save').click();
    await expect.poll(() => page.getByTestId('dirty').count()).toBe(0);
    const saved = JSON.parse(readFileSync(path, 'utf8')) as {
      domains: { id: string }[];
      mechanisms: { id: string; domain: string }[];
      analyses: { id: string }[];
      caseStudies: { id: string }[];
    };
    expect(saved.domains.map((d) => d.id)).toEqual(['cities']);
    expect(saved.mechanisms.every((m) => m.domain === 'cities')).toBe(true);
    expect(saved.analyses.map((a) => a.id)).toEqual(['rr-uniform', 'rr-city-sizes', 'cities-capacity']);
    expect(saved.caseStudies.map((c) => c.id)).toEqual(['voting']);
    expect(h.pageErrors, h.pageErrors.join('\n')).toEqual([]);
  });
});
