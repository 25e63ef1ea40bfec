/** Progress of a release (apply) follows the rows released, not the bytes the reader has buffered ahead. */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releaseFile, rowBytesAtMost } from '../../../../src-worker/jobs/remap-jobs';
import { truncatedGeometric } from '../../../../src-worker/mechanism/truncated-geometric';
import { lineDomain } from '../../../../src-worker/metric/line';

const dir = mkdtempSync(join(tmpdir(), 'release-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('apply progress in label mode', () => {
  it('reports the fraction of the file released (short label rows: 2 bytes each, 1.2 MB: more than the reader buffers ahead)', async () => {
    const rows = 600_000;
    const header = 'secret\n';
    const input = join(dir, 'secrets.csv');
    writeFileSync(input, header + Array.from({ length: rows }, (_, i) => `${i % 6}\n`).join(''));
    const size = header.length + 2 * rows;
    const d = lineDomain(6);
    const reports: { f: number; n: number }[] = [];
    const ctx = {
      signal: new AbortController().signal,
      progress: (f: number | null, m: string) =>
        reports.push({ f: f ?? NaN, n: Number(/released (\d+) rows/.exec(m)![1]) }),
    };
    const r = await releaseFile(truncatedGeometric(d, 1).channel, d, input, join(dir, 'out.csv'), { seed: 1, ctx });
    expect(r.rows).toBe(rows);
    expect(reports.length).toBe(Math.floor(rows / 4096));
    for (const { f, n } of reports) {
      // n rows released: the header and 2 n bytes of the file
      expect(f).toBeCloseTo((header.length + 2 * n) / size, 9);
    }
    expect(reports[reports.length - 1]!.f).toBeLessThan(1);
  });

  it('counts a row by its fields, separators, quotes where needed and one line break', () => {
    expect(rowBytesAtMost(['17'])).toBe(3);
    expect(rowBytesAtMost(['(2,3)'])).toBe(8); // "(2,3)" quoted
    expect(rowBytesAtMost(['1.5', '2.25'])).toBe(9);
    expect(rowBytesAtMost(['é'])).toBe(3);
  });
});
