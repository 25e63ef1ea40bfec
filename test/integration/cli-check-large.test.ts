/**
 * `check` and `measure` read a channel CSV over the 4,000,000 entries a request carries inline (the engine writes
 * channels of any size: an optimal LP on 50 x 50 is 6.25M entries): the file is read into shared memory, kept by
 * the local pool's channel store and named by channelRef, and the verdict is the one the entries give. The file
 * is written by the engine's own CSV writer; 2 secrets x 2,100,000 outputs (4.2M entries, mostly zeros: a 24 MB
 * file) keeps the test to a few seconds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Matrix } from '../../src-worker/linalg/matrix';
import { DenseChannel } from '../../src-worker/mechanism/channel';
import { writeChannelCsv } from '../../src-worker/jobs/channel-csv';
import { MAX_REQUEST_CHANNEL_ENTRIES } from '../../src-shared/protocol/common';
import { runCli } from './cli-run';
import { argv } from '../unit/support/argv';

const COLS = 2_100_000;
let file = '';

beforeAll(async () => {
  const c = new Matrix(2, COLS);
  // C[0] = (1/2, 1/2, 0, ...), C[1] = (1/4, 3/4, 0, ...): the worst ratio is 2 (output 0), 0 facing 0 elsewhere
  c.set(0, 0, 0.5);
  c.set(0, 1, 0.5);
  c.set(1, 0, 0.25);
  c.set(1, 1, 0.75);
  file = join(mkdtempSync(join(tmpdir(), 'mech-check-large-')), 'wide.csv');
  await writeChannelCsv(new DenseChannel(c), file);
}, 60_000);

describe('check and measure on a channel CSV over the inline limit', () => {
  it('check: private at eps 1 with effective eps ln 2, not private at eps 0.5 (the worst pair named)', async () => {
    expect(2 * COLS).toBeGreaterThan(MAX_REQUEST_CHANNEL_ENTRIES);
    const ok = await runCli(argv`check --channel ${file} --domain line:2 --epsilon 1 --json --quiet`);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const r = JSON.parse(ok.stdout) as { private: boolean; effectiveEpsilon: number };
    expect(r.private).toBe(true);
    expect(r.effectiveEpsilon).toBeCloseTo(Math.LN2, 15);
    const bad = await runCli(argv`check --channel ${file} --domain line:2 --epsilon 0.5 --json --quiet`);
    expect(bad.code).toBe(0);
    const v = JSON.parse(bad.stdout) as {
      private: boolean;
      violations: { x: string; xp: string; y: string; ratio: number }[];
    };
    expect(v.private).toBe(false);
    expect(v.violations).toEqual([{ x: '0', xp: '1', y: '0', ratio: 2 }]);
  }, 120_000);

  it('measure: the same file, its effective eps and leakage', async () => {
    const m = await runCli(argv`measure --channel ${file} --domain line:2 --epsilon 1 --json --quiet`);
    expect(m.stderr).toBe('');
    const r = JSON.parse(m.stdout) as { effectiveEpsilon: number; leakage: number };
    expect(r.effectiveEpsilon).toBeCloseTo(Math.LN2, 15);
    // uniform prior: V[pi > C] = (max(1/2,1/4) + max(1/2,3/4)) / 2 = 5/8, leakage log2(5/8 / 1/2)
    expect(r.leakage).toBeCloseTo(Math.log2(1.25), 12);
  }, 120_000);
});
