/**
 * CLI start-up (npm run bench -- startup): wall time of a trivial job,
 * `mechstudio mechanism --domain line:6 --epsilon 1 --kind tg`, as a
 * subprocess, through the built JavaScript (out/cli, out/worker: built first
 * by scripts/build-cli.mjs) versus the TypeScript sources through tsx, in the
 * same run, interleaved so both see the same machine load. Also `node -e 0`
 * (the floor: starting Node itself) and a `check` of a 6 x 6 channel.
 * Median of BENCH_STARTUP_RUNS runs (default 11) after one warm-up each.
 * Goal: the built path under 0.3 s for the trivial job.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/mechstudio.js');

function wallMs(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export default function startupBench(): void {
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build:cli failed: ${b.stderr}`);
  process.stdout.write(b.stdout);

  const runs = Math.max(3, Number(process.env.BENCH_STARTUP_RUNS ?? 11));
  const dir = mkdtempSync(join(tmpdir(), 'mechstudio-startup-'));
  try {
    const channel = join(dir, 'tg6.csv');
    const gen = spawnSync(
      process.execPath,
      [BIN, 'mechanism', '--domain', 'line:6', '--epsilon', '1', '--kind', 'tg', '--out', channel],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    if (gen.status !== 0) throw new Error(`could not write the channel: ${gen.stderr}`);

    const env = (mode: string): NodeJS.ProcessEnv => ({ ...process.env, MECHSTUDIO_CLI: mode });
    const jobs: { name: string; args: string[] }[] = [
      {
        name: 'mechanism --domain line:6 --epsilon 1 --kind tg',
        args: [BIN, 'mechanism', '--domain', 'line:6', '--epsilon', '1', '--kind', 'tg'],
      },
      {
        name: 'check --channel tg6.csv --domain line:6 --epsilon 1',
        args: [BIN, 'check', '--channel', channel, '--domain', 'line:6', '--epsilon', '1'],
      },
    ];
    const floor: number[] = [];
    wallMs(['-e', '0'], process.env);
    for (let i = 0; i < runs; i++) floor.push(wallMs(['-e', '0'], process.env));
    console.log(`node -e 0 (floor)                                  median ${median(floor).toFixed(0)} ms`);
    for (const job of jobs) {
      const built: number[] = [];
      const tsx: number[] = [];
      wallMs(job.args, env('built'));
      wallMs(job.args, env('tsx'));
      for (let i = 0; i < runs; i++) {
        built.push(wallMs(job.args, env('built')));
        tsx.push(wallMs(job.args, env('tsx')));
      }
      const mb = median(built);
      const mt = median(tsx);
      console.log(
        `${job.name.padEnd(52)} built ${mb.toFixed(0)} ms (min ${Math.min(...built).toFixed(0)}), tsx ${mt.toFixed(0)} ms (min ${Math.min(...tsx).toFixed(0)}): ${(mt / mb).toFixed(2)}x faster built` +
          (job === jobs[0]
            ? `; goal < 300 ms: ${mb < 300 ? 'met' : 'NOT met'} (above the node floor: built +${(mb - median(floor)).toFixed(0)} ms, tsx +${(mt - median(floor)).toFixed(0)} ms; a loaded machine inflates every figure)`
            : ''),
      );
    }
    console.log(`(median of ${runs} runs each, interleaved; BENCH_STARTUP_RUNS to change)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
