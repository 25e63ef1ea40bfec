/**
 * `mechstudio audit`: the documented --json keys, the text output, point
 * samples binned on a points grid, the bad-input messages, and the built-in
 * example (a vendor's planar Laplace with ten times too little noise) refuted
 * from its logs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-run';
import { auditExample } from '../../src-main/project/examples';
import { runJob } from '../unit/support/run-job';
import { argv } from '../unit/support/argv';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ms-audit-'));
});

/** k-RR-like samples on clique:3 (exact frequencies, no randomness): 60% of each secret's reports are itself. */
function krrSamples(per: number): string {
  const lines = ['secret,released'];
  for (let a = 0; a < 3; a++)
    for (let i = 0; i < per; i++) {
      const r = i % 10;
      lines.push(`${a},${r < 6 ? a : r < 8 ? (a + 1) % 3 : (a + 2) % 3}`);
    }
  return lines.join('\n') + '\n';
}

describe('mechstudio audit', () => {
  it('--json has the documented keys; a claim below the samples is refuted, one above is not', async () => {
    const file = join(dir, 'krr.csv');
    writeFileSync(file, krrSamples(4000));
    const r = await runCli(argv`audit --samples ${file} --domain clique:3 --epsilon 0.5 --json --quiet`);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const k of ['verdict', 'epsilonLowerBound', 'witness', 'samples', 'pairsTested']) expect(j).toHaveProperty(k);
    expect(j.verdict).toBe('refuted');
    expect(j.samples).toBe(12_000);
    expect(j.pairsTested).toBe(4);
    // ln(0.6 / 0.2) = 1.0986 is the truth of every pair; the bound is below it and well above 0.5.
    expect(j.epsilonLowerBound as number).toBeGreaterThan(0.9);
    expect(j.epsilonLowerBound as number).toBeLessThan(Math.log(3));
    const w = j.witness as { secrets: string[]; event: string[]; distance: number };
    expect(w.event).toEqual([w.secrets[0]]);
    expect(w.distance).toBe(1);
    const ok = await runCli(argv`audit --samples ${file} --domain clique:3 --epsilon 1.2 --confidence 0.95 --quiet`);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(
      /^not refuted: with 95% confidence the effective ε is at least 0\.9\d* per unit of distance, not above the claimed 1\.2: the samples do not contradict the claim\n/,
    );
    // the witness in words, the formula on the line under it
    expect(ok.stdout).toMatch(
      /\nwitness: secrets \d and \d, 1 apart, and a set E of 1 output: the released outputs in E are at least [\d.]+ times likelier/,
    );
    expect(ok.stdout).toMatch(
      /\n {2}the formula: E = \{\d\}: P\(E \| \d\) ≥ [\d.]+ \(\d+ of \d+\), P\(E \| \d\) ≤ [\d.]+ \(\d+ of \d+\), so ε ≥ ln\(/,
    );
    expect(ok.stdout).toContain('samples per secret to detect a violation');
  }, 60_000);

  it('point samples are binned on the --prior points:FILE grid', async () => {
    const pts = join(dir, 'pts.csv');
    writeFileSync(pts, 'x,y\n0.5,0.5\n2.5,0.5\n');
    const file = join(dir, 'point-samples.csv');
    const lines = ['secret_x,secret_y,released_x,released_y'];
    for (let i = 0; i < 2000; i++)
      lines.push(
        i % 5 === 0 ? '0.5,0.5,2.5,0.5' : '0.5,0.5,0.5,0.5',
        i % 5 === 0 ? '2.5,0.5,0.5,0.5' : '2.5,0.5,2.5,0.5',
      );
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await runCli(argv`audit --samples ${file} --prior points:${pts}:cell=1:box=0,0,3,1
      --epsilon 0.1 --json --quiet`);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { verdict: string; mode: string; witness: { distance: number; event: string[] } };
    expect(j.mode).toBe('points');
    expect(j.verdict).toBe('refuted');
    // The two secrets are 2 km apart (cells (0,0) and (0,2)): the bound is per km.
    expect(j.witness.distance).toBe(2);
  }, 60_000);

  it('a log of one secret: verdict not-tested with the reason, exit 0, never "not refuted"', async () => {
    const file = join(dir, 'one-secret.csv');
    writeFileSync(file, `secret,released\n${Array.from({ length: 60 }, (_, i) => `1,${i % 4}`).join('\n')}\n`);
    const j = await runCli(argv`audit --samples ${file} --domain line:4 --epsilon 1 --json`);
    expect(j.code).toBe(0);
    const o = JSON.parse(j.stdout) as { verdict: string; pairsTested: number; note: string };
    expect([o.verdict, o.pairsTested, o.note]).toEqual([
      'not-tested',
      0,
      'the log has samples of 1 secret; an audit needs two',
    ]);
    const t = await runCli(argv`audit --samples ${file} --domain line:4 --epsilon 1`);
    expect(t.stdout.split('\n')[0]).toBe(
      'not tested: the log has samples of 1 secret; an audit needs two (no verdict on the claimed ε = 1: these samples can neither refute nor support it)',
    );
    expect(t.stdout).not.toMatch(/not refuted/);
  });

  it('bad input: one line naming what is wrong, exit 2', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, 'secret,released\n0,1\n0,7\n');
    const r = await runCli(argv`audit --samples ${file} --domain line:4 --epsilon 1`);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `mechstudio: samples CSV ${file}, line 3: the released value is not a point of line:4 (nothing is dropped: fix or remove the row)\n`,
    );
    writeFileSync(file, 'secret,released\n0,1\n7,0\n');
    const s = await runCli(argv`audit --samples ${file} --domain line:4 --epsilon 1`);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/line 3: the secret is not a point of line:4/);
    const c = await runCli(argv`audit --samples ${file} --domain line:4 --epsilon 1 --confidence 1`);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/--confidence must be a number strictly between 0 and 1/);
    const p = await runCli(argv`audit --samples ${file} --domain line:4 --epsilon 1 --prior uniform`);
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/--prior in audit gives the grid of point samples only/);
  }, 60_000);
});

describe('the built-in audit example', () => {
  it("the vendor's planar Laplace (ln 4 per km for a claim of ln 4 per 10 km) is refuted from its logs; the samples are the same every time", async () => {
    const ex = auditExample('vendor-planar-laplace');
    expect(auditExample('vendor-planar-laplace').samples).toBe(ex.samples);
    expect(ex.samples.startsWith('secret,released\n"(0,0)","(')).toBe(true);
    const r = await runJob<'audit'>({ type: 'audit', domain: ex.domain, epsilon: ex.epsilon, text: ex.samples });
    expect(r.samples).toBe(64 * 300);
    expect(r.verdict).toBe('refuted');
    // The truth is ln 4 = 1.386 per km, ten times the claim of 0.139; 300 reports per cell show three times the claim.
    expect(r.epsilonLowerBound).toBeGreaterThan(0.3);
    expect(r.epsilonLowerBound).toBeLessThan(Math.log(4));
    expect(r.witness!.distance).toBeLessThanOrEqual(Math.SQRT2);
  }, 60_000);
});
