/** The CLI planners' input boundary: what `apply` and `audit` refuse before any worker opens a file. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../../src-main/cli/args';
import { PLANNERS } from '../../../../src-main/cli/planners';
import { MechError } from '../../../../src-shared/errors';
import { COMMAND_USAGE, USAGE } from '../../../../src-main/cli/usage';
import { argv } from '../../support/argv';

const dir = mkdtempSync(join(tmpdir(), 'mechstudio-planners-'));

/** The message of the MechError a planner throws (or rejects with), checking it is bad input. */
async function refusal(argv: string[]): Promise<string> {
  const args = parseArgs(argv);
  const e = await Promise.resolve()
    .then(() => PLANNERS[args.command as keyof typeof PLANNERS](args, new AbortController().signal))
    .then(
      () => null,
      (x: unknown) => x,
    );
  expect(e).toBeInstanceOf(MechError);
  expect((e as MechError).code).toBe('invalid-input');
  return (e as MechError).message;
}

const apply = (input: string): string[] => argv`apply --domain line:3 --epsilon 1 --kind tg --input ${input}
  --out ${join(dir, 'out.csv')}`;
const audit = (samples: string): string[] => argv`audit --domain line:3 --epsilon 1 --samples ${samples}`;

describe('input files of apply and audit', () => {
  it('refuse /proc pseudo-files (size 0, readable), also through a link, naming the path and what it is', async () => {
    const link = join(dir, 'environ.csv');
    symlinkSync('/proc/self/environ', link);
    expect(await refusal(apply('/proc/self/environ'))).toBe(
      "secrets CSV '/proc/self/environ' is not a regular file (files under /proc and /sys are refused)",
    );
    expect(await refusal(apply(link))).toBe(
      `secrets CSV '${link}' is not a regular file (files under /proc and /sys are refused)`,
    );
    expect(await refusal(audit('/proc/self/status'))).toBe(
      "samples CSV '/proc/self/status' is not a regular file (files under /proc and /sys are refused)",
    );
  });

  it('refuse devices, FIFOs and directories, saying what the path is', async () => {
    const fifo = join(dir, 'fifo.csv');
    execFileSync('mkfifo', [fifo]);
    expect(await refusal(apply('/dev/null'))).toBe("secrets CSV '/dev/null' is a character device, not a regular file");
    expect(await refusal(apply(fifo))).toBe(`secrets CSV '${fifo}' is a FIFO (named pipe), not a regular file`);
    expect(await refusal(audit(dir))).toBe(`samples CSV '${dir}' is a directory, not a regular file`);
  });

  it('still plan a regular file', async () => {
    const secrets = join(dir, 'secrets.csv');
    writeFileSync(secrets, 'secret\n0\n2\n');
    const args = parseArgs(apply(secrets));
    const plan = await PLANNERS.apply!(args, new AbortController().signal);
    expect(plan.request).toMatchObject({ type: 'apply', input: secrets });
  });
});

describe('the command table', () => {
  it('the help lists every planned command once, in the table order, and no other', () => {
    const listed = [...USAGE.matchAll(/^ {2}mechstudio (\S+)/gm)].map((m) => m[1]);
    expect(listed).toEqual(Object.keys(COMMAND_USAGE));
    expect(Object.keys(PLANNERS).sort()).toEqual([...listed].sort());
    expect(listed).toContain('compare');
  });
});

describe('mechanism --threads: the optimal LP priced as the engine decides (src-worker/lp/pricing/lp-threads.ts)', () => {
  const plan = async (extra: string[]) => {
    const args = parseArgs(['mechanism', '--domain', 'grid:3x3', '--epsilon', '1', '--kind', 'optimal', ...extra]);
    return (await PLANNERS.mechanism(args, new AbortController().signal)).request as { lpThreads?: number };
  };

  it('fills --threads N at most the cores; without it leaves the choice to the engine', async () => {
    const cores = availableParallelism();
    expect((await plan(['--threads', '1'])).lpThreads).toBe(1);
    expect((await plan(['--threads', String(cores + 6)])).lpThreads).toBe(cores);
    expect(await plan([])).not.toHaveProperty('lpThreads');
  });
});
