/**
 * The `rows` job: views of channels of any size fetch rows and
 * block means from the engine. Every number is compared with a brute-force
 * recomputation from the dense channel of the same mechanism (its mechanism
 * job's inline matrix) in the test.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearRowsCache } from '../../../../src-worker/jobs/rows';
import { type MechanismResult, type RowsResult } from '../../../../src-shared/protocol/results';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import { MechError } from '../../../../src-shared/errors';
import { runJob } from '../../support/run-job';

const run = (req: unknown): Promise<unknown> => runJob(req);

async function dense(spec: Record<string, unknown>): Promise<NonNullable<MechanismResult['matrix']>> {
  const m = (await run({ type: 'mechanism', ...spec, inlineLimit: 4_000_000 })) as MechanismResult;
  expect(m.matrix).toBeDefined();
  return m.matrix!;
}

/**
 * Brute-force block means, cell by cell: block y holds the rows r with
 * floor(k n / parts) <= r < floor((k+1) n / parts), found by scanning the
 * block edges (not by the engine's loop over blocks).
 */
function bruteBlocks(
  m: { rows: number; cols: number; data: number[] },
  maxB: number,
): { by: number; bx: number; means: number[] } {
  const by = Math.min(m.rows, maxB);
  const bx = Math.min(m.cols, maxB);
  const blockOf = (i: number, n: number, parts: number): number => {
    let k = 0;
    while (Math.floor(((k + 1) * n) / parts) <= i) k++;
    return k;
  };
  const sums = new Array<number>(by * bx).fill(0);
  const counts = new Array<number>(by * bx).fill(0);
  for (let r = 0; r < m.rows; r++) {
    for (let c = 0; c < m.cols; c++) {
      const b = blockOf(r, m.rows, by) * bx + blockOf(c, m.cols, bx);
      sums[b]! += m.data[r * m.cols + c]!;
      counts[b]!++;
    }
  }
  return { by, bx, means: sums.map((s, b) => s / counts[b]!) };
}

beforeEach(() => clearRowsCache());

describe('rows job: listed rows', () => {
  it('planar Laplace on a 30 x 30 grid (900 x 900): rows 0, 465, 899 equal the dense channel, with labels; a column range cuts them', async () => {
    const spec = { domain: 'grid:30x30:step=0.5', epsilon: 1, kind: 'planar-laplace' };
    const m = await dense(spec);
    expect(m.rows).toBe(900);
    const r = (await run({ type: 'rows', mechanism: spec, rows: [0, 465, 899] })) as RowsResult;
    expect(r.rows).toBe(900);
    expect(r.cols).toBe(900);
    expect(r.rowLabels).toEqual([m.rowLabels[0], m.rowLabels[465], m.rowLabels[899]]);
    expect(r.colLabels).toEqual(m.colLabels);
    [0, 465, 899].forEach((i, k) => {
      const want = m.data.slice(i * 900, (i + 1) * 900);
      expect(r.data![k]).toEqual(want);
      expect(r.data![k]!.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    });
    const part = (await run({ type: 'rows', mechanism: spec, rows: [465], colFrom: 400, colTo: 430 })) as RowsResult;
    expect(part.data![0]).toEqual(m.data.slice(465 * 900 + 400, 465 * 900 + 430));
    expect(part.colLabels).toEqual(m.colLabels.slice(400, 430));
  });

  it('truncated geometric on a database domain: rows equal the dense channel', async () => {
    const spec = { domain: 'db:3,3:metric=hamming', epsilon: 0.5, kind: 'exponential' };
    const m = await dense(spec);
    const r = (await run({ type: 'rows', mechanism: spec, rows: [m.rows - 1, 2] })) as RowsResult;
    expect(r.data![0]).toEqual(m.data.slice((m.rows - 1) * m.cols, m.rows * m.cols));
    expect(r.data![1]).toEqual(m.data.slice(2 * m.cols, 3 * m.cols));
  });

  it('refuses a row that does not exist, and an optimal LP (which would be solved again)', async () => {
    await expect(
      run({ type: 'rows', mechanism: { domain: 'line:5', epsilon: 1, kind: 'tg' }, rows: [5] }),
    ).rejects.toMatchObject({
      code: 'invalid-input',
      message: expect.stringMatching(/row 5 does not exist: the channel has 5 rows/),
    });
    await expect(
      run({ type: 'rows', mechanism: { domain: 'line:5', epsilon: 1, kind: 'optimal' }, rows: [0] }),
    ).rejects.toBeInstanceOf(MechError);
  });

  it('the schema refuses both or neither of rows and blocks, and too many blocks', () => {
    const mech = { domain: 'line:5', epsilon: 1, kind: 'tg' };
    expect(parseJobRequest({ type: 'rows', mechanism: mech }).ok).toBe(false);
    expect(parseJobRequest({ type: 'rows', mechanism: mech, rows: [0], blocks: 4 }).ok).toBe(false);
    expect(parseJobRequest({ type: 'rows', mechanism: mech, blocks: 401 }).ok).toBe(false);
    expect(parseJobRequest({ type: 'rows', mechanism: mech, rows: [0], colFrom: 3, colTo: 2 }).ok).toBe(false);
    expect(parseJobRequest({ type: 'rows', mechanism: mech, rows: [-1] }).ok).toBe(false);
  });
});

describe('rows job: block means', () => {
  it('planar Laplace 30 x 30 on 120 x 120 blocks (uneven split) equals the brute-force means of the dense channel', async () => {
    const spec = { domain: 'grid:30x30:step=0.5', epsilon: 1, kind: 'planar-laplace' };
    const m = await dense(spec);
    const r = (await run({ type: 'rows', mechanism: spec, blocks: 120 })) as RowsResult;
    const want = bruteBlocks(m, 120);
    const b = r.blocks!;
    expect(b.blocksY).toBe(want.by);
    expect(b.blocksX).toBe(want.bx);
    expect(b.means.length).toBe(120 * 120);
    let maxErr = 0;
    for (let k = 0; k < want.means.length; k++) maxErr = Math.max(maxErr, Math.abs(b.means[k]! - want.means[k]!));
    expect(maxErr).toBeLessThan(1e-15);
    expect(b.vmax).toBeCloseTo(Math.max(...want.means), 15);
    expect(b.rowEdges[0]).toBe(0);
    expect(b.rowEdges[120]).toBe(900);
    // block 1 covers rows 7..14 (floor(900/120) = 7, floor(1800/120) = 15)
    expect(b.rowFirst[1]).toBe(m.rowLabels[7]);
    expect(b.rowLast[1]).toBe(m.rowLabels[14]);
  });

  it('a channel smaller than the block count is returned entry by entry', async () => {
    const spec = { domain: 'line:6', epsilon: Math.LN2, kind: 'tg' };
    const m = await dense(spec);
    const r = (await run({ type: 'rows', mechanism: spec, blocks: 400 })) as RowsResult;
    expect(r.blocks!.blocksY).toBe(6);
    expect(r.blocks!.means).toEqual(m.data);
  });

  it('every block row of means of a row-stochastic channel averages to 1 / cols per column on average', async () => {
    const spec = { domain: 'grid:20x20', epsilon: 0.7, kind: 'exponential' };
    const r = (await run({ type: 'rows', mechanism: spec, blocks: 7 })) as RowsResult;
    const b = r.blocks!;
    // sum over blocks of mean * block size = total mass = rows
    let mass = 0;
    for (let y = 0; y < b.blocksY; y++)
      for (let x = 0; x < b.blocksX; x++)
        mass +=
          b.means[y * b.blocksX + x]! * (b.rowEdges[y + 1]! - b.rowEdges[y]!) * (b.colEdges[x + 1]! - b.colEdges[x]!);
    expect(mass).toBeCloseTo(400, 9);
  });
});
