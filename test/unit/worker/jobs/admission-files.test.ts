/**
 * The engine's file edges: the channel-CSV export never replaces anything
 * but a regular file and never opens a FIFO; the domain-file reader refuses
 * non-regular files at once and caps bytes (see also admission.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { streamChannelCsv } from '../../../../src-worker/measure/structured/channel-csv-stream';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { readRegularTextFile } from '../../../../src-worker/metric/read-text-file';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mech-files-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const eye = () =>
  new DenseChannel(
    Matrix.fromRows([
      [1, 0],
      [0, 1],
    ]),
    ['a', 'b'],
    ['a', 'b'],
  );

async function writeError(path: string): Promise<MechError> {
  try {
    await streamChannelCsv(eye(), path);
  } catch (e) {
    expect(e).toBeInstanceOf(MechError);
    return e as MechError;
  }
  throw new Error('the export was accepted');
}

describe('channel CSV export targets', () => {
  it('refuses a FIFO or a directory at the path, leaving it in place, and never blocks', async () => {
    const fifo = join(dir, 'out.fifo');
    execFileSync('mkfifo', [fifo]);
    const e = await writeError(fifo);
    expect(e.code).toBe('invalid-input');
    expect(e.message).toBe(
      `cannot write ${fifo}: it is a FIFO (named pipe), not a regular file; refusing to replace it`,
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    const sub = join(dir, 'adir');
    mkdirSync(sub);
    expect((await writeError(sub)).message).toMatch(/it is a directory, not a regular file/);
    expect(lstatSync(sub).isDirectory()).toBe(true);
    // a FIFO planted at the temporary name is not opened (that would block for ever)
    const target = join(dir, 'x.csv');
    execFileSync('mkfifo', [`${target}.partial`]);
    expect((await writeError(target)).message).toMatch(/its temporary file .*x\.csv\.partial is a FIFO/);
    // never blocked: opening a FIFO for writing waits for a reader that never comes, so each refusal above returned
    // without opening one (the test's timeout is the hang guard, no clock)
  });

  it('replaces a regular file and clears a stale temporary file', async () => {
    const target = join(dir, 'ok.csv');
    writeFileSync(target, 'old');
    writeFileSync(`${target}.partial`, 'stale');
    await streamChannelCsv(eye(), target);
    expect(readFileSync(target, 'utf8')).toBe(',a,b\na,1,0\nb,0,1\n');
    expect(() => lstatSync(`${target}.partial`)).toThrow();
  });
});

describe('domain file reader', () => {
  it('reads a regular file; refuses devices, FIFOs and over-cap files with the file named, no content', () => {
    const f = join(dir, 'g.csv');
    writeFileSync(f, 'a,b\n');
    expect(readRegularTextFile(f, 'edge-list file')).toBe('a,b\n');
    const big = join(dir, 'big.txt');
    writeFileSync(big, 'SECRET'.repeat(100));
    const e = (() => {
      try {
        readRegularTextFile(big, 'distance file', 100);
      } catch (err) {
        return err as MechError;
      }
      throw new Error('accepted');
    })();
    expect(e.code).toBe('too-large');
    expect(e.message).toMatch(new RegExp(`^distance file '${big}' is`));
    expect(e.message).not.toMatch(/SECRET/);
    expect(() => readRegularTextFile('/dev/zero', 'distance file')).toThrow(
      /'\/dev\/zero': it is a character device, not a regular file/,
    );
  });
});

describe('custom metric validation progress', () => {
  it('reports how far the n^3 triangle check is', async () => {
    const { customMetricDomain } = await import('../../../../src-worker/metric/custom-metric');
    const n = 900;
    const m = new Matrix(n, n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m.data[i * n + j] = Math.abs(i - j);
    const labels = Array.from({ length: n }, (_, i) => `p${i}`);
    const seen: [number, string][] = [];
    const d = customMetricDomain(m, labels, 'm900', (f, msg) => seen.push([f, msg]));
    expect(d.n).toBe(n);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    let prev = -1;
    for (const [f, msg] of seen) {
      expect(f).toBeGreaterThan(prev);
      expect(f).toBeLessThan(1);
      expect(msg).toMatch(/^checking the triangle inequality of 900 points: row \d+ of 900$/);
      prev = f;
    }
  }, 30_000);
});
