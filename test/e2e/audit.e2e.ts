/**
 * The Audit view in the browser: the built-in example (a vendor's planar
 * Laplace with ten times too little noise, claim ln 4 per 10 km) refuted
 * from its logs, the witness pair and event on the grid, the samples needed
 * to detect violations; then a samples file loaded from disk on a line (the
 * witness as a strip of outputs) and a bad file's message. Screenshots go to
 * test-output/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, useHarness, openApp } from './helpers';

const h = useHarness({
  setup: async (started) => {
    await started.page.setViewportSize({ width: 1400, height: 1100 });
    await openApp(started);
  },
  timeout: 240_000,
});

describe('audit view', () => {
  it("the vendor's planar Laplace example is refuted; the witness is drawn on the grid", async () => {
    const page = h.page;
    await page.getByTestId('cmd-audit').click();
    await page.getByTestId('audit-view').waitFor();
    await page.getByTestId('audit-example').click();
    const verdict = page.getByTestId('audit-verdict');
    await verdict.waitFor({ timeout: 120_000 });
    expect(await verdict.textContent()).toMatch(
      /claim refuted:\s+with 99% confidence the effective ε is at least 0\.\d+ per unit of distance, above the claimed 0\.1386\d*: the mechanism protects less than claimed/,
    );
    expect(await page.getByTestId('audit-domain').inputValue()).toBe('grid:8x8');
    const witness = page.getByTestId('audit-witness');
    expect(await witness.textContent()).toMatch(
      /^Witness: secrets \(\d,\d\) and \(\d,\d\), 1(\.41421)? apart, and a set E of \d+ outputs?: the released outputs in E are at least [\d.]+ times likelier for \(\d,\d\) than for \(\d,\d\)/,
    );
    // the formula behind it: the witness's tooltip, and the details toggle (closed: not shown text)
    expect(await witness.getAttribute('title')).toMatch(/^E = \{.*\}: P\(E \| \(\d,\d\)\) ≥ [\d.]+ .*, so ε ≥ ln\(/);
    expect(await page.getByTestId('audit-formula').getAttribute('open')).toBeNull();
    await page.getByTestId('audit-map-a').waitFor();
    await page.getByTestId('audit-map-b').waitFor();
    const rows = await page.getByTestId('audit-detection').locator('tbody tr').allTextContents();
    expect(rows.length).toBe(5);
    expect(rows[0]).toMatch(/^0\.1733\s*1\.25\s*[\d,]+$/);
    mkdirSync(SHOTS, { recursive: true });
    await page.getByTestId('audit-view').screenshot({ path: join(SHOTS, 'audit-vendor-example.png') });
    await page.getByTestId('audit-detection').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'audit-vendor-detection.png') });
  });

  it('a samples file on a line: not refuted at the true eps, the witness as a strip; a bad file named in one line', async () => {
    const page = h.page;
    // Exact randomized-response frequencies on line:5: each secret reports itself 40% of the time, each other value 15%
    // (eps ln(8/3) = 0.98).
    const lines = ['secret,released'];
    for (let a = 0; a < 5; a++)
      for (let i = 0; i < 2000; i++) {
        const r = i % 20;
        lines.push(`${a},${r < 8 ? a : (a + 1 + ((r - 8) % 4)) % 5}`);
      }
    const file = join(h.tmp, 'line-samples.csv');
    writeFileSync(file, lines.join('\n') + '\n');
    await page.getByTestId('audit-file').setInputFiles(file);
    await expect
      .poll(async () => (await page.getByTestId('audit-loaded').textContent())!.replace(/\s+/g, ' ').trim())
      .toMatch(/^Samples: line-samples\.csv · [\d,]+ bytes · SHA.256 [0-9a-f]{64}$/);
    await page.getByTestId('audit-domain').fill('line:5');
    await page.getByTestId('audit-epsilon').fill('3');
    await page.getByTestId('audit-detect').fill('4, 6');
    await page.getByTestId('audit-run').click();
    await expect
      .poll(() => page.getByTestId('audit-verdict').textContent(), { timeout: 60_000 })
      .toMatch(/^claim not refuted:\s+with [\d.]+% confidence the effective ε is at least 0\.[6-9]\d* per unit/);
    await page.getByTestId('audit-strip').waitFor();
    // One cell per point of line:5; the witness's two secrets are lettered.
    expect(await page.getByTestId('audit-strip').locator('.cell').count()).toBe(5);
    expect((await page.getByTestId('audit-strip').textContent())!.replace(/\s/g, '').split('').sort().join('')).toBe(
      'ab',
    );
    expect(await page.getByTestId('audit-detection').locator('tbody tr').count()).toBe(2);
    await page.getByTestId('audit-view').screenshot({ path: join(SHOTS, 'audit-line-file.png') });

    const bad = join(h.tmp, 'bad-samples.csv');
    writeFileSync(bad, 'secret,released\n0,1\n9,1\n');
    await page.getByTestId('audit-file').setInputFiles(bad);
    await page.getByTestId('audit-run').click();
    await expect
      .poll(() => page.getByTestId('audit-error').textContent(), { timeout: 60_000 })
      .toMatch(/line 3: the secret is not a point of line:5/);
  });
});
