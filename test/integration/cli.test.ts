/**
 * The `mechstudio` command line as a subprocess (bin/mechstudio.js through
 * tsx, the real worker pool): every SPEC §8 command, exit codes, the exact
 * --json keys, a CSV round trip (export a channel, `measure --channel`
 * reproduces the numbers), bad input (exit 2, one line, no stack trace) and
 * Ctrl-C. Processes run concurrently to keep the file fast.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  watch,
  writeFileSync,
  type FSWatcher,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { argv } from '../unit/support/argv';

const bin = fileURLToPath(new URL('../../bin/mechstudio.js', import.meta.url));
const LN2 = String(Math.LN2);

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Run the CLI; with `interruptWhenWriting`, Ctrl-C (SIGINT) as soon as a file appears in that folder (the job is
 * writing its output).
 */
function cli(args: string[], opts: { cwd?: string; interruptWhenWriting?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [bin, ...args], { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let interruptedAt = 0;
    let watcher: FSWatcher | null = null;
    if (opts.interruptWhenWriting !== undefined) {
      // an event, not a delay: the signal lands while the export is being written, however loaded the machine is
      mkdirSync(opts.interruptWhenWriting, { recursive: true });
      watcher = watch(opts.interruptWhenWriting, () => {
        if (interruptedAt !== 0) return;
        interruptedAt = Date.now();
        child.kill('SIGINT');
      });
    }
    child.on('close', (code, signal) => {
      watcher?.close();
      resolve({ code, signal, stdout, stderr, ms: Date.now() - (interruptedAt || t0) });
    });
  });
}

/** Run a batch with bounded concurrency (2 cores are shared by the team). */
async function batch<K extends string>(jobs: Record<K, () => Promise<Run>>, limit = 3): Promise<Record<K, Run>> {
  const keys = Object.keys(jobs) as K[];
  const out = {} as Record<K, Run>;
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < keys.length) {
        const k = keys[next++]!;
        out[k] = await jobs[k]();
      }
    }),
  );
  return out;
}

function json(r: Run): Record<string, unknown> {
  // stderr may carry progress lines (slow machine), never an error
  expect(r.stderr).not.toMatch(/mechstudio: /);
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

function badInput(r: Run, pattern: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^mechstudio: /);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('mechstudio CLI (subprocess)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mechstudio-cli-'));
  const tg = join(dir, 'tg.csv');
  let r: Record<string, Run>;

  beforeAll(async () => {
    writeFileSync(join(dir, 'bad.csv'), ',a,b\nx,0.5,0.5\ny,0.5,zero\n');
    writeFileSync(join(dir, 'prior.csv'), '0.5\n0.25\n0.25\n');
    writeFileSync(
      join(dir, 'project.json'),
      JSON.stringify({
        version: 1,
        name: 'cli test',
        domains: [{ id: 'three', domain: 'line:3' }],
        priors: [{ id: 'p', domain: 'three', prior: 'csv:prior.csv' }],
        mechanisms: [{ id: 'tg', domain: 'three', kind: 'tg', epsilon: Math.LN2, prior: 'p' }],
        analyses: [
          { id: 'm', type: 'measure', mechanism: 'tg', prior: 'p' },
          { id: 'r', type: 'regular', domain: 'three', epsilon: Math.LN2, prior: 'p' },
        ],
      }),
    );
    // first wave: commands that do not depend on each other
    r = await batch({
      mechanism: () =>
        cli(['mechanism', '--domain', 'line:6', '--epsilon', LN2, '--kind', 'tg', '--out', tg, '--json']),
      tightMissing: () => cli(['mechanism', '--domain', 'grid:4x4', '--epsilon', '0.5', '--kind', 'tight', '--json']),
      bigMatrix: () => cli(['mechanism', '--domain', 'line:300', '--epsilon', '1', '--kind', 'tg']),
      capacity: () => cli(['capacity', '--domain', 'line:4', '--epsilon', LN2, '--json']),
      regular: () => cli(['regular', '--domain', 'line:6', '--epsilon', LN2, '--prior', 'uniform', '--json']),
      threshold: () => cli(['threshold', '--domain', 'grid:4x4', '--json']),
      vertices: () => cli(['vertices', '--domain', 'line:4', '--epsilon', LN2, '--kernels', '--json']),
      run: () => cli(['run', 'project.json', '--out', 'out', '--json'], { cwd: dir }),
      example: () => cli(['example', 'voting', '--out', join(dir, 'voting')]),
      badEps: () => cli(['mechanism', '--domain', 'line:6', '--epsilon', '-1', '--kind', 'tg']),
      badDomain: () => cli(['regular', '--domain', 'lines:6', '--epsilon', '1', '--prior', 'uniform']),
      badCsv: () => cli(['check', '--channel', join(dir, 'bad.csv'), '--domain', 'line:2', '--epsilon', '1']),
      badCommand: () => cli(['mechanisms', '--domain', 'line:6']),
      // a 25M-entry channel streamed to a ~310 MB CSV, cancelled once its temp file appears
      interrupted: () =>
        cli(argv`mechanism --domain line:5000 --epsilon 1 --kind tg --out ${join(dir, 'cancelled', 'big.csv')}`, {
          interruptWhenWriting: join(dir, 'cancelled'),
        }),
    });
    // second wave: the CSV round trip
    Object.assign(
      r,
      await batch({
        measure: () => cli(['measure', '--channel', tg, '--json']),
        check: () => cli(['check', '--channel', tg, '--domain', 'line:6', '--epsilon', '0.5', '--json']),
        // after the timed Ctrl-C case, so that the seconds of solves do not delay its start
        thresholdSum: () => cli(['threshold', '--domain', 'sum:150,5', '--json']),
        manyThreads: () =>
          cli(['mechanism', '--domain', 'line:6', '--epsilon', LN2, '--kind', 'tg', '--threads', '256', '--json']),
      }),
    );
  }, 120_000);

  it('mechanism: TG on 0..5 at eps ln 2 (SPEC §7), the documented keys, CSV export', () => {
    const o = json(r.mechanism!);
    expect(Object.keys(o)).toEqual(['exists', 'rows', 'cols', 'utility', 'effectiveEpsilon', 'guaranteedEpsilon']);
    expect(o.exists).toBe(true);
    expect(o.rows).toBe(6);
    expect(o.cols).toBe(6);
    expect(o.utility as number).toBeCloseTo(4 / 9, 12);
    expect(o.effectiveEpsilon as number).toBeCloseTo(Math.LN2, 9);
    const lines = readFileSync(tg, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe(',0,1,2,3,4,5');
    const first = lines[1]!.split(',').slice(1).map(Number);
    [32, 8, 4, 2, 1, 1].forEach((v, j) => expect(first[j]! * 48).toBeCloseTo(v, 10));
  });

  it('mechanism: a tight-constraints mechanism that does not exist gives exists false and min z, exit 0', () => {
    const o = json(r.tightMissing!);
    expect(Object.keys(o)).toEqual(['exists', 'minZ', 'minZAt']);
    expect(o.exists).toBe(false);
    expect(o.minZ as number).toBeLessThan(0);
  });

  it('readable output; refuses to print a matrix larger than 200 x 200 and says how to export it', () => {
    expect(r.bigMatrix!.code).toBe(0);
    expect(r.bigMatrix!.stdout).toMatch(/size\s+300 secrets x 300 outputs/);
    // TG utility, uniform prior: (298 (1-a)/(1+a) + 2/(1+a)) / 300 with a = e^-1
    const a = Math.exp(-1);
    const u = (298 * ((1 - a) / (1 + a)) + 2 / (1 + a)) / 300;
    expect(Number(/utility\s+([0-9.]+) \(binary gain/.exec(r.bigMatrix!.stdout)![1])).toBeCloseTo(u, 5);
    expect(r.bigMatrix!.stdout).toMatch(/300 x 300 matrix is larger than 200 x 200 .* --out FILE\.csv/);
  });

  it("measure --channel reproduces the exported mechanism's numbers (CSV round trip)", () => {
    const o = json(r.measure!);
    expect(Object.keys(o).join(' ')).toBe(
      'vulnerability posteriorVulnerability leakage utility multiplicativeCapacity additiveCapacity',
    );
    const m = json(r.mechanism!);
    expect(o.utility).toBe(m.utility);
    expect(o.vulnerability as number).toBeCloseTo(1 / 6, 15);
    expect(o.posteriorVulnerability as number).toBeCloseTo(4 / 9, 12);
    expect(o.leakage as number).toBeCloseTo(Math.log2((4 / 9) * 6), 12);
    expect(o.multiplicativeCapacity as number).toBeCloseTo(8 / 3, 12); // = 6 * 4/9
  });

  it('check: the TG at eps ln 2 is not 0.5-private; effective eps ln 2', () => {
    const o = json(r.check!);
    expect(Object.keys(o)).toEqual(['private', 'epsilon', 'effectiveEpsilon', 'violations']);
    expect(o.private).toBe(false);
    expect(o.effectiveEpsilon as number).toBeCloseTo(Math.LN2, 9);
    expect((o.violations as unknown[]).length).toBeGreaterThan(0);
  });

  it('capacity: line of 4 at eps ln 2 is 2 and 2/3 (SPEC §7)', () => {
    const o = json(r.capacity!);
    expect(Object.keys(o)).toEqual(['multiplicative', 'additive']);
    expect(o.multiplicative as number).toBeCloseTo(2, 6);
    expect(o.additive as number).toBeCloseTo(2 / 3, 6);
  });

  it('regular: uniform prior on line:6 is regular; bound = TG utility 4/9', () => {
    const o = json(r.regular!);
    expect(Object.keys(o)).toEqual(['regular', 'utilityBound', 'leakageBound', 'regularity']);
    expect(o.regularity).toMatchObject({ kind: 'regular', minMuAt: expect.any(String) });
    expect(o.regular).toBe(true);
    expect(o.utilityBound as number).toBeCloseTo(4 / 9, 9);
    expect(o.leakageBound as number).toBeCloseTo(Math.log2((4 / 9) * 6), 9);
  });

  it('threshold: 4 x 4 Euclidean grid at step 0.01 is 0.69', () => {
    expect(json(r.threshold!)).toEqual({ epsilon: 0.69 });
  });

  it('--threads above the cores is capped to them with a one-line note, and the job runs', () => {
    const cores = availableParallelism();
    expect(r.manyThreads!.code).toBe(0);
    expect(r.manyThreads!.stderr.trim()).toBe(
      `mechstudio: note: --threads 256 is more than this machine's ${cores} cores: using ${cores}`,
    );
    expect((JSON.parse(r.manyThreads!.stdout) as { rows: number }).rows).toBe(6);
  });

  it('threshold: the sum of 150 values in 0..5 (the domain of the sum case study) is 0.97, by Levinson on its answer graph', () => {
    expect(json(r.thresholdSum!)).toEqual({ epsilon: 0.97 });
  });

  it('vertices: line of 4 at eps ln 2 has 8 vertices and 11 kernel mechanisms (SPEC §7)', () => {
    expect(json(r.vertices!)).toEqual({ vertices: 8, kernels: 11 });
  });

  it('run: writes each channel as CSV, each analysis as JSON and CSV, and summary.md', () => {
    const o = json(r.run!);
    expect(Object.keys(o)).toEqual(['name', 'out', 'files', 'mechanisms', 'analyses', 'failed']);
    expect(o.failed).toEqual([]);
    for (const f of [
      'channels/tg.csv',
      'analyses/m.json',
      'analyses/m.csv',
      'analyses/r.json',
      'analyses/r.csv',
      'summary.md',
    ]) {
      expect(existsSync(join(dir, 'out', f)), f).toBe(true);
    }
    const m = JSON.parse(readFileSync(join(dir, 'out', 'analyses', 'm.json'), 'utf8')) as { vulnerability: number };
    expect(m.vulnerability).toBe(0.5); // the csv prior, resolved relative to the project file
  });

  it('example: runs a built-in project', () => {
    expect(r.example!.stderr).not.toMatch(/mechstudio: /);
    expect(r.example!.code).toBe(0);
    expect(existsSync(join(dir, 'voting', 'summary.md'))).toBe(true);
    expect(readFileSync(join(dir, 'voting', 'analyses', 'rr-uniform.json'), 'utf8')).toMatch(
      /"utility": 0\.28571428571428/,
    );
  });

  it('bad input: exit 2, one clear line on stderr, no stack trace', () => {
    badInput(r.badEps!, /--epsilon must be a number > 0/);
    badInput(r.badDomain!, /lines:6/);
    badInput(r.badCsv!, /bad\.csv line 3, column 3: 'zero' is not a number/);
    badInput(r.badCommand!, /unknown command 'mechanisms'/);
  });

  it('Ctrl-C cancels the running job cleanly: exit 130, no partial file left', () => {
    const x = r.interrupted!;
    expect(x.code).toBe(130);
    expect(x.stderr).toMatch(/cancell/);
    expect(x.stderr).not.toMatch(/\n\s+at /);
    // the cancelled export leaves neither the file nor its temp file
    expect(readdirSync(join(dir, 'cancelled'))).toEqual([]);
  });
});
