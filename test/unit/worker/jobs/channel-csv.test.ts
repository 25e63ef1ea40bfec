import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { assertCsvFits, writeChannelCsv } from '../../../../src-worker/jobs/channel-csv';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import {
  channelCsvRow,
  csvField,
  streamChannelCsv,
} from '../../../../src-worker/measure/structured/channel-csv-stream';

function channel(): DenseChannel {
  const m = new Matrix(3, 2);
  m.data.set([0.1, 0.9, 1 / 3, 2 / 3, 1, 0]);
  return new DenseChannel(m, ['a', 'b,c', ' d'], ['y"0', 'y1']);
}

describe('channel CSV export for jobs (one writer: channel-csv-stream)', () => {
  it('writes the SPEC §8 format: quoted labels, shortest round-trip numbers, progress named after the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobs-csv-'));
    const path = join(dir, 'c.csv');
    const msgs: string[] = [];
    await writeChannelCsv(channel(), path, undefined, (f, m) => msgs.push(`${f}:${m}`));
    expect(readFileSync(path, 'utf8')).toBe(
      ',"y""0",y1\na,0.1,0.9\n"b,c",0.3333333333333333,0.6666666666666666\n" d",1,0\n',
    );
    expect(msgs.at(-1)).toBe(`1:writing ${path}`);
    expect(existsSync(`${path}.partial`)).toBe(false);
    // the job writer and the streamed writer are the same format
    const p2 = join(dir, 'd.csv');
    await streamChannelCsv(channel(), p2, { chunkRows: 1 });
    expect(readFileSync(p2, 'utf8')).toBe(readFileSync(path, 'utf8'));
    expect(channelCsvRow(channel(), 2, new Float64Array(2))).toBe('" d",1,0\n');
    expect(csvField('plain')).toBe('plain');
  });

  it('a cancelled job leaves no file; an oversized channel and an unwritable path are MechErrors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobs-csv-'));
    const ac = new AbortController();
    ac.abort();
    const err = await writeChannelCsv(channel(), join(dir, 'x.csv'), ac.signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('cancelled');
    expect(existsSync(join(dir, 'x.csv'))).toBe(false);
    expect(existsSync(join(dir, 'x.csv.partial'))).toBe(false);
    expect(() => assertCsvFits(100000, 100000)).toThrow(/TB of CSV/);
    // unwritable whoever runs it: under a regular file the test makes (a folder named once could have been created by
    // --out)
    const plain = join(mkdtempSync(join(tmpdir(), 'ms-unwritable-')), 'plain');
    writeFileSync(plain, '');
    const target = join(plain, 'x.csv');
    await expect(writeChannelCsv(channel(), target)).rejects.toThrow(`cannot write ${target}`);
  });
});
