/**
 * `mechstudio apply`: one released row per input row, always. Line 1 of the
 * secrets CSV is a header only when it is not a secret (or as --header
 * says), and a channel's row labels are the secrets when --domain is omitted.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-run';
import { argv } from '../unit/support/argv';

let dir = '';
let channel = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ms-apply-header-'));
  channel = join(dir, 'tg5.csv');
  const r = await runCli(argv`mechanism --domain line:5 --epsilon 1 --kind tg --out ${channel} --quiet`);
  expect(r.code, r.stderr).toBe(0);
}, 60_000);

function released(path: string): string[] {
  return readFileSync(path, 'utf8').trim().split('\n');
}

describe('apply: headers decided by content, the channel as the domain', () => {
  it('a headerless file of 100,000 lines of 2 on line:5 releases 100,000 rows', async () => {
    const input = join(dir, 'twos.csv');
    writeFileSync(input, '2\n'.repeat(100_000));
    const out = join(dir, 'twos-out.csv');
    const r = await runCli(argv`apply --domain line:5 --epsilon 1 --kind tg --input ${input} --out ${out} --json`);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { rows: number; header: boolean };
    expect(j).toMatchObject({ rows: 100_000, header: false });
    const lines = released(out);
    expect(lines[0]).toBe('released');
    expect(lines.length).toBe(100_001);
    // the text output says how line 1 was read
    const t = await runCli(argv`apply --channel ${channel} --input ${input} --out ${out}`);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/header\s+none: line 1 of the secrets CSV is a secret/);
  }, 60_000);

  it('apply --channel without --domain: the channel row labels are the secrets; a header line is not released', async () => {
    const input = join(dir, 'with-header.csv');
    writeFileSync(input, 'secret\n0\n4\n4.0\n');
    const out = join(dir, 'with-header-out.csv');
    const r = await runCli(argv`apply --channel ${channel} --input ${input} --out ${out} --json`);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 3, header: true, domain: "the channel's rows" });
    expect(released(out).length).toBe(4);
  }, 60_000);

  it('--header yes and no override the content; a bad value and a headerless label outside the domain are errors', async () => {
    const input = join(dir, 'small.csv');
    writeFileSync(input, '2\n3\n');
    const out = join(dir, 'small-out.csv');
    const yes = await runCli(argv`apply --channel ${channel} --input ${input} --out ${out} --header yes --json`);
    expect(yes.code, yes.stderr).toBe(0);
    expect(JSON.parse(yes.stdout)).toMatchObject({ rows: 1, header: true });
    const named = join(dir, 'named.csv');
    writeFileSync(named, 'secret\n3\n');
    const no = await runCli(argv`apply --channel ${channel} --input ${named} --out ${out} --header no`);
    expect(no.code).toBe(2);
    expect(no.stderr).toMatch(/line 1: the secret is not a point/);
    const bad = await runCli(argv`apply --channel ${channel} --input ${input} --out ${out} --header maybe`);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--header must be yes or no/);
    // a number is never a header: 7 on line:5 is a secret outside the domain, not a header dropped silently
    const seven = join(dir, 'seven.csv');
    writeFileSync(seven, '7\n3\n');
    const out7 = join(dir, 'seven-out.csv');
    const r7 = await runCli(argv`apply --channel ${channel} --input ${seven} --out ${out7}`);
    expect(r7.code).toBe(2);
    expect(r7.stderr).toMatch(/line 1: the secret is not a point/);
    expect(existsSync(out7)).toBe(false);
  }, 60_000);

  it('word labels: a first line that is a label could be a header, so --header is asked for', async () => {
    const words = join(dir, 'words.csv');
    writeFileSync(words, ',yes,no\nyes,0.75,0.25\nno,0.25,0.75\n');
    const input = join(dir, 'answers.csv');
    writeFileSync(input, 'yes\nno\nno\n');
    const out = join(dir, 'answers-out.csv');
    const r = await runCli(argv`apply --channel ${words} --input ${input} --out ${out}`);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /line 1 is a label of the channel's rows and could also be a header; say --header yes or --header no/,
    );
    const no = await runCli(argv`apply --channel ${words} --input ${input} --out ${out} --header no --json`);
    expect(no.code, no.stderr).toBe(0);
    expect(JSON.parse(no.stdout)).toMatchObject({ rows: 3, header: false });
  }, 60_000);
});
