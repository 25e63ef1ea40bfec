/**
 * `mechstudio compare`: the table on stdout with units,
 * --out writes the CSV (the same figures as --json, recomputed here for the
 * planar Laplace row from the engine's channel), --png the chart; bad --kinds
 * exits 2 naming the item.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-run';
import { gridDomain } from '../../src-worker/metric/grid';
import { planarLaplace } from '../../src-worker/mechanism/planar-laplace';
import { argv } from '../unit/support/argv';

const cli = (args: string[]) => runCli(args);

describe('mechstudio compare', () => {
  it('prints the table with units, writes the CSV and the PNG; the figures match a direct computation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mechstudio-compare-'));
    const csv = join(dir, 't.csv');
    const png = join(dir, 'c.png');
    const args = argv`compare --domain grid:6x7:step=0.5 --epsilon 1.5
      --kinds planar-laplace,planar-laplace+remap,exponential --quiet`;
    const r = await cli(argv`${args} --out ${csv} --png ${png}`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/expected distance \(km\)/);
    expect(r.stdout).toMatch(/same as planar Laplace/);
    expect(r.stdout).toMatch(/\d+\.\d% better/);
    const lines = readFileSync(csv, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(5);
    const j = await cli([...args, '--json']);
    const out = JSON.parse(j.stdout) as {
      rows: { expectedDistance: number; pTrue: number; focusRow?: unknown }[];
      prior?: unknown;
    };
    expect(out.prior).toBeUndefined();
    expect(out.rows[0]!.focusRow).toBeUndefined();
    expect(Number(lines[2]!.split(',')[4])).toBe(out.rows[0]!.expectedDistance);
    // planar Laplace's expected distance and P(true cell) under the uniform prior, from its rows
    const d = gridDomain(6, 7, 0.5, 'euclidean');
    const ch = planarLaplace(d, 1.5).channel;
    const row = new Float64Array(d.n);
    let ed = 0;
    let pt = 0;
    for (let x = 0; x < d.n; x++) {
      ch.row(x, row);
      for (let y = 0; y < d.n; y++)
        ed += (row[y]! * 0.5 * Math.hypot(Math.floor(x / 7) - Math.floor(y / 7), (x % 7) - (y % 7))) / d.n;
      pt += row[x]! / d.n;
    }
    expect(out.rows[0]!.expectedDistance).toBeCloseTo(ed, 10);
    expect(out.rows[0]!.pTrue).toBeCloseTo(pt, 12);
    const bytes = readFileSync(png);
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  }, 60_000);

  it('exits 2 on a bad --kinds item, naming it', async () => {
    const r = await cli(argv`compare --domain grid:3x3 --epsilon 1 --kinds planar-laplace,plnar`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/'plnar' is not a mechanism kind/);
  });
});
