/**
 * `mechstudio apply --channel`: a channel read from a CSV is released only
 * once the engine's privacy check passes on it: at --epsilon on --domain when
 * given, else it must be private at some eps (no positive entry facing a zero).
 * An identity channel (the secrets themselves) is refused and nothing is written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliRun } from './cli-run';
import { argv } from '../unit/support/argv';

let dir = '';
let identity = '';
let tg = '';
let secrets = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ms-apply-private-'));
  identity = join(dir, 'identity.csv');
  writeFileSync(identity, ',0,1,2\n0,1,0,0\n1,0,1,0\n2,0,0,1\n');
  tg = join(dir, 'tg5.csv');
  const r = await runCli(argv`mechanism --domain line:5 --epsilon 1 --kind tg --out ${tg} --quiet`);
  expect(r.code, r.stderr).toBe(0);
  secrets = join(dir, 'secrets.csv');
  writeFileSync(secrets, '0\n1\n2\n');
}, 60_000);

/** The release refused: exit 2, exactly `message` on stderr, and no file at `out`. */
function expectRefused(r: CliRun, message: string, out: string): void {
  expect(r.code).toBe(2);
  expect(r.stderr.trim()).toBe(message);
  expect(existsSync(out)).toBe(false);
}

describe('apply refuses a channel that is not private at the eps it is released under', () => {
  it.each([
    [
      'an identity channel without --domain: private at no eps, refused, no file written',
      [],
      'id-out.csv',
      'mechstudio: apply: the channel is private at no eps: a positive entry faces a zero in the same output (secrets 0 and 1, output 0); it is not released',
    ],
    [
      'an identity channel at --epsilon 1 on line:3: effective eps infinite, refused',
      argv`--domain line:3 --epsilon 1`,
      'id-eps-out.csv',
      'mechstudio: apply: the channel is not 1*d-private on line:3: its effective eps is infinite (secrets 0 and 1, output 0); it is not released',
    ],
  ])(
    '%s',
    async (_what, flags, name, message) => {
      const out = join(dir, name);
      expectRefused(
        await runCli(argv`apply --channel ${identity} ${flags} --input ${secrets} --out ${out}`),
        message,
        out,
      );
    },
    60_000,
  );

  it('the eps=1 truncated geometric: refused at --epsilon 0.5, released at --epsilon 1 with what it was checked at', async () => {
    const out = join(dir, 'tg-out.csv');
    const low = await runCli(argv`apply --channel ${tg} --domain line:5 --epsilon 0.5
      --input ${secrets} --out ${out}`);
    expectRefused(
      low,
      'mechstudio: apply: the channel is not 0.5*d-private on line:5: its effective eps is 1 (secrets 0 and 1, output 0); it is not released',
      out,
    );
    const ok = await runCli(argv`apply --channel ${tg} --domain line:5 --epsilon 1 --input ${secrets}
      --out ${out} --json`);
    expect(ok.code, ok.stderr).toBe(0);
    const j = JSON.parse(ok.stdout) as { rows: number; checkedEpsilon: number; effectiveEpsilon: number };
    expect(j.rows).toBe(3);
    expect(j.checkedEpsilon).toBe(1);
    expect(j.effectiveEpsilon).toBeCloseTo(1, 9);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(4);
    const text = await runCli(argv`apply --channel ${tg} --domain line:5 --epsilon 1
      --input ${secrets} --out ${out}`);
    expect(text.stdout).toMatch(/privacy\s+checked 1\*d-private on line:5 before release \(effective eps 1\)/);
  }, 60_000);

  it('--epsilon with --channel needs --domain', async () => {
    const r = await runCli(argv`apply --channel ${tg} --epsilon 1 --input ${secrets} --out ${join(dir, 'x.csv')}`);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'mechstudio: apply --channel with --epsilon needs --domain (the distances eps is about)',
    );
  }, 60_000);
});
