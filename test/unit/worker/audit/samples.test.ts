import { describe, expect, it } from 'vitest';
import { readSamples } from '../../../../src-worker/audit/samples';
import { readCsvRows } from '../../../../src-worker/metric/read-csv';
import { parseDomainSpec } from '../../../../src-worker/metric/parse-domain-spec';
import { cellBinning } from '../../../../src-worker/data/points';
import { MechError } from '../../../../src-shared/errors';

/** The MechError a read rejects with: its code and message. */
async function expectMechError(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(MechError);
  expect((e as MechError).code).toBe(code);
  expect((e as MechError).message).toMatch(message);
}

const line = parseDomainSpec('line:5');
const grid = parseDomainSpec('grid:2x3');
const read = (text: string, domain = line, points?: Parameters<typeof readSamples>[3]) =>
  readSamples(readCsvRows(text, 'samples CSV'), domain, 'samples CSV', points);

describe('samples CSV of an audit', () => {
  it('reads secret,released in any column order, other columns ignored; values equal to labels count', async () => {
    const r = await read('when,released,secret\nmon,4,0\ntue,2.0,3\n');
    expect([...r.secrets]).toEqual([0, 3]);
    expect([...r.outputs]).toEqual([4, 2]);
    expect(r.mode).toBe('labels');
  });

  it('without a header, line 1 is a sample: secret then released', async () => {
    const r = await read('1,2\n3,3\n');
    expect([...r.secrets]).toEqual([1, 3]);
    expect([...r.outputs]).toEqual([2, 3]);
  });

  it('grid labels quoted; points for both, binned on the grid', async () => {
    const r = await read('secret,released\n"(1,2)","(0,0)"\n', grid);
    expect([...r.secrets]).toEqual([5]);
    expect([...r.outputs]).toEqual([0]);
    // 2 x 3 cells of 1 km from x = 0, y = 2 (top): (0.5, 1.5) is cell (0,0), (2.5, 0.5) is cell (1,2)
    const p = await read('secret_x,secret_y,released_x,released_y\n0.5,1.5,2.5,0.5\n', grid, {
      points: { binning: cellBinning(0, 2, 2, 3, 1) },
    });
    expect(p.mode).toBe('points');
    expect([...p.secrets]).toEqual([0]);
    expect([...p.outputs]).toEqual([5]);
  });

  it('a released value outside the domain is named as the released value, with the file and line, not as the secret', async () => {
    const src = 'samples CSV /data/log.csv';
    const at = (text: string, domain = line, points?: Parameters<typeof readSamples>[3]) =>
      readSamples(readCsvRows(text, src), domain, src, points);
    const exact = async (p: Promise<unknown>, message: string) => {
      const e = await p.then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(MechError);
      expect((e as MechError).message).toBe(message);
    };
    const outside =
      'samples CSV /data/log.csv, line 3: the released value is not a point of line:5 (nothing is dropped: fix or remove the row)';
    await exact(at('secret,released\n1,2\n1,7\n'), outside);
    await exact(at('released,secret\n2,1\n7,1\n'), outside);
    await exact(at('1,2\n0,0\n1,7\n'), outside);
    // headerless, line 1 a secret and a released value outside: that value, not "neither a header nor a sample"
    await exact(at('1,7\n0,0\n'), outside.replace('line 3', 'line 1'));
    await exact(at('secret,released\n1,2\n1, \n'), 'samples CSV /data/log.csv, line 3: empty released value');
    await exact(
      at('secret_x,secret_y,released_x,released_y\n0.5,1.5,2.5,0.5\n0.5,1.5,9.5,0.5\n', grid, {
        points: { binning: cellBinning(0, 2, 2, 3, 1) },
      }),
      'samples CSV /data/log.csv (released), line 3: the point is outside the grid (nothing is dropped: fix or remove the row)',
    );
  });

  it('bad input: one message naming what is wrong', async () => {
    await expectMechError(
      read('who,what\n1,2\n'),
      'invalid-input',
      /line 1 is neither the header secret,released \(or secret_x,secret_y,released_x,released_y\) nor a sample of line:5/,
    );
    await expectMechError(
      read('secret,released\n1\n'),
      'invalid-input',
      /line 2: a sample needs a secret and a released column \(the row has 1 fields\)/,
    );
    await expectMechError(
      read('secret,released\n7,1\n'),
      'invalid-input',
      /line 2: the secret is not a point of line:5/,
    );
    await expectMechError(read('secret,released\n'), 'invalid-input', /no samples/);
    await expectMechError(
      read('secret_x,secret_y,released_x,released_y\n0.5,1.5,2.5,0.5\n', grid),
      'invalid-input',
      /no grid binning was given/,
    );
  });
});
