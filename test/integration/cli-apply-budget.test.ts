/**
 * `mechstudio apply --project P`: each release is recorded into P's release log, releases of the same population add
 * their eps, a release past P's privacy budget is refused (nothing released, P untouched) unless --over-budget, and a
 * project that does not parse is never written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectSchema } from '../../src-shared/protocol/index';
import { runCli } from './cli-run';
import { argv } from '../unit/support/argv';

let dir = '';
let secrets = '';
const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

function writeProject(name: string, extra: Record<string, unknown> = {}): string {
  const p = join(dir, name);
  writeFileSync(
    p,
    JSON.stringify({ version: 1, name: 'study', domains: [{ id: 'd', domain: 'line:5' }], ...extra }, null, 2) + '\n',
  );
  return p;
}
const apply = (project: string, eps: string, out: string, more: string[] = []): ReturnType<typeof runCli> =>
  runCli(argv`apply --domain line:5 --epsilon ${eps} --kind tg --input ${secrets} --out ${join(dir, out)}
    --project ${project} ${more}`);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ms-apply-budget-'));
  secrets = join(dir, 'secrets.csv');
  writeFileSync(secrets, '0\n1\n2\n3\n4\n2\n');
});

describe('apply --project records releases against the privacy budget', () => {
  it('records the release (mechanism, eps, population by hash, files, rows, randomness, date), and a second one adds up', async () => {
    const p = writeProject('p1.json', { privacyBudget: { all: 2 } });
    const r1 = await apply(p, '0.5', 'r1.csv');
    expect(r1.code, r1.stderr).toBe(0);
    const hash = sha(secrets);
    expect(r1.stdout).toContain(
      `privacy spent on the data set sha256:${hash.slice(0, 12)}...: 0.5 in total (budget 2)`,
    );
    const r2 = await apply(p, '0.75', 'r2.csv', ['--json']);
    expect(r2.code, r2.stderr).toBe(0);
    expect((JSON.parse(r2.stdout) as { release: unknown }).release).toEqual({
      project: p,
      population: `sha256:${hash}`,
      epsilon: 0.75,
      spent: 1.25,
      budget: 2,
    });
    const saved = projectSchema.parse(JSON.parse(readFileSync(p, 'utf8')));
    expect(saved.releases).toHaveLength(2);
    const [a, b] = saved.releases!;
    expect(a).toMatchObject({
      mechanism: 'tg',
      epsilon: 0.5,
      population: `sha256:${hash}`,
      input: { name: 'secrets.csv', size: 12, sha256: hash },
      output: { name: 'r1.csv', sha256: sha(join(dir, 'r1.csv')), size: readFileSync(join(dir, 'r1.csv')).length },
      rows: 6,
      randomness: 'crypto',
    });
    expect(Number.isNaN(Date.parse(a!.date))).toBe(false);
    expect(b!.epsilon).toBe(0.75);
    expect(saved.privacyBudget).toEqual({ all: 2 });
  }, 60_000);

  it('refuses a release past the budget with one line, releases nothing and leaves the project as it was; --over-budget passes', async () => {
    const p = writeProject('p2.json', { privacyBudget: { populations: { clinic: 1 } } });
    const first = await apply(p, '0.75', 'c1.csv', ['--population', 'clinic']);
    expect(first.code, first.stderr).toBe(0);
    const before = readFileSync(p, 'utf8');
    const refused = await apply(p, '0.5', 'c2.csv', ['--population', 'clinic']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      "mechstudio: privacy budget exceeded for 'clinic': spent 0.75 + this release 0.5 = 1.25 > budget 1; give --over-budget to release anyway",
    );
    expect(existsSync(join(dir, 'c2.csv'))).toBe(false);
    expect(readFileSync(p, 'utf8')).toBe(before);
    const over = await apply(p, '0.5', 'c2.csv', ['--population', 'clinic', '--over-budget']);
    expect(over.code, over.stderr).toBe(0);
    expect(over.stdout).toContain("privacy spent on 'clinic': 1.25 in total (budget 1 (OVER BUDGET))");
    expect(projectSchema.parse(JSON.parse(readFileSync(p, 'utf8'))).releases!.map((x) => x.epsilon)).toEqual([
      0.75, 0.5,
    ]);
  }, 60_000);

  it('a project that does not parse is named, not touched, and nothing is released', async () => {
    const p = join(dir, 'bad.json');
    const text = '{"version": 1, "name": "study", "domains": [], "releases": [{"epsilon": -1}]}\n';
    writeFileSync(p, text);
    const r = await apply(p, '0.5', 'bad-out.csv');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `mechstudio: ${p} field 'releases.0.mechanism': Invalid input: expected string, received undefined (and 7 more problems)`,
    );
    expect(readFileSync(p, 'utf8')).toBe(text);
    expect(existsSync(join(dir, 'bad-out.csv'))).toBe(false);
  }, 60_000);

  it('--channel with --project needs the eps the release spends', async () => {
    const ch = join(dir, 'tg.csv');
    expect((await runCli(argv`mechanism --domain line:5 --epsilon 1 --kind tg --out ${ch} --quiet`)).code).toBe(0);
    const p = writeProject('p3.json');
    const r = await runCli(argv`apply --channel ${ch} --input ${secrets}
      --out ${join(dir, 'ch-out.csv')} --project ${p}`);
    expect(r.stderr.trim()).toBe(
      'mechstudio: apply --project with --channel needs --domain and --epsilon: the eps the release spends from the budget is the one the channel is checked at',
    );
    expect(r.code).toBe(2);
  }, 60_000);
});
