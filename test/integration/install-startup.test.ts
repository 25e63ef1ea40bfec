/**
 * Install and start-up:
 * - the built CLI (out/cli + out/worker, scripts/build-cli.mjs) prints exactly
 *   what the TypeScript sources through tsx print, byte for byte, for a few
 *   commands, errors included, and finds the built-in examples;
 * - bin/mechstudio.js uses the bundle only while no source that went into it
 *   changed since the build (scripts/built-fresh.mjs), on a scratch copy;
 * - `npm start` (scripts/start.mjs) falls back to web mode, with its one-line
 *   message, where the Electron binary is missing, and the web host answers;
 * - a failed Electron download does not fail the install
 *   (scripts/install-electron.mjs) and npm never runs electron's own script.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { recordRendererBuild, rendererIsStale } from '../../src-main/web/build-renderer';
import { argv } from '../unit/support/argv';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/mechstudio.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], mode: 'built' | 'tsx'): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, MECHSTUDIO_CLI: mode },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'mechstudio-startup-'));
  // The bundles from the current sources (npm test builds them too).
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs'), '--quiet'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (b.status !== 0) throw new Error(`build:cli failed:\n${b.stdout}\n${b.stderr}`);
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('built CLI = TypeScript CLI', () => {
  it('the bundles load no TypeScript: the CLI starts out/worker, packages stay where they are', () => {
    const cliJs = readFileSync(join(ROOT, 'out/cli/main.js'), 'utf8');
    expect(cliJs).toContain('../worker/worker-entry.js');
    expect(cliJs).not.toMatch(/from\s*"zod"/); // bundled in: ~50 ms less per thread
    expect(cliJs).toMatch(/from\s*"piscina"/); // external: piscina starts its own worker file
    const workerJs = readFileSync(join(ROOT, 'out/worker/worker-entry.js'), 'utf8');
    expect(workerJs).toMatch(/from\s*"highs"/); // external: highs finds its .wasm next to itself
    const info = JSON.parse(readFileSync(join(ROOT, 'out/cli/build-info.json'), 'utf8')) as { inputs: string[] };
    expect(info.inputs).toContain('src-main/cli/main.ts');
    expect(info.inputs).toContain('src-worker/worker-entry.ts');
    expect(info.inputs.every((p) => !p.startsWith('node_modules/piscina') && !p.startsWith('node_modules/highs'))).toBe(
      true,
    );
  });

  it('prints the same bytes and exits the same way for mechanism, check, an LP, an example list and bad input', async () => {
    const channel = join(tmp, 'tg6.csv');
    const made = await cli(
      ['mechanism', '--domain', 'line:6', '--epsilon', '1', '--kind', 'tg', '--out', channel],
      'built',
    );
    expect(made.code).toBe(0);
    const cases: string[][] = [
      ['mechanism', '--domain', 'line:6', '--epsilon', '1', '--kind', 'tg', '--json'],
      ['mechanism', '--domain', 'line:6', '--epsilon', '1', '--kind', 'tg'],
      ['check', '--channel', channel, '--domain', 'line:6', '--epsilon', '1', '--json'],
      ['check', '--channel', channel, '--domain', 'line:6', '--epsilon', '0.5', '--json'],
      // HiGHS (WebAssembly) in the worker: the .wasm must be found from the bundle.
      ['mechanism', '--domain', 'line:5', '--epsilon', '1', '--kind', 'optimal', '--json'],
      // the typed LP path (decomposition)
      argv`mechanism --domain grid:3x3 --epsilon 1 --kind optimal --loss dist --lp-model exact --json`,
      // its pricing on 2 threads: the bundled out/worker/pricing-worker.js (built) against the source through tsx
      argv`mechanism --domain grid:4x4 --epsilon 1 --kind optimal --loss dist --lp-model exact --threads 2 --json`,
      // resources/examples, located from import.meta.url
      ['example', '--list'],
      ['mechanism', '--domain', 'line:0', '--epsilon', '1', '--kind', 'tg'],
      ['mechanism', '--domain', 'line:6', '--epsilon', '1', '--kind', 'no-such-kind', '--json'],
    ];
    // Wall times (the LP's lp.timeMs, each cheap candidate's time) are the figures that differ between two runs.
    const untimed = (r: Awaited<ReturnType<typeof cli>>) => ({
      ...r,
      stdout: r.stdout.replace(/"(timeMs|time)":[0-9.e+-]+/g, '"$1":0'),
    });
    for (const args of cases) {
      const built = untimed(await cli(args, 'built'));
      const tsx = untimed(await cli(args, 'tsx'));
      expect({ args, ...built }).toEqual({ args, ...tsx });
    }
    const tg = JSON.parse((await cli(cases[0]!, 'built')).stdout) as { rows: number; effectiveEpsilon: number };
    expect(tg.rows).toBe(6);
    expect(tg.effectiveEpsilon).toBeCloseTo(1, 9);
    const bad = await cli(cases[8]!, 'built');
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  }, 120_000);
});

describe('bin/mechstudio.js picks the bundle only when it is fresh', () => {
  it('fresh after a build; stale after an input is touched, removed, or the record is missing', async () => {
    const { builtIsFresh } = (await import(pathToFileURL(join(ROOT, 'scripts/built-fresh.mjs')).href)) as {
      builtIsFresh: (root: string, outputs: string[]) => boolean;
    };
    const r = join(tmp, 'root');
    mkdirSync(join(r, 'src'), { recursive: true });
    mkdirSync(join(r, 'out/cli'), { recursive: true });
    const old = new Date(Date.now() - 60_000);
    for (const f of ['src/a.ts', 'src/b.ts', 'out/cli/main.js']) {
      writeFileSync(join(r, f), '');
      utimesSync(join(r, f), old, old);
    }
    const record = (inputs: string[]): void =>
      writeFileSync(join(r, 'out/cli/build-info.json'), JSON.stringify({ builtAt: Date.now() - 30_000, inputs }));

    expect(builtIsFresh(r, ['out/cli/main.js'])).toBe(false); // no record
    record(['src/a.ts', 'src/b.ts']);
    expect(builtIsFresh(r, ['out/cli/main.js'])).toBe(true);
    expect(builtIsFresh(r, ['out/cli/main.js', 'out/worker/worker-entry.js'])).toBe(false); // a bundle missing
    writeFileSync(join(r, 'src/b.ts'), 'edited'); // mtime now > builtAt
    expect(builtIsFresh(r, ['out/cli/main.js'])).toBe(false);
    utimesSync(join(r, 'src/b.ts'), old, old);
    expect(builtIsFresh(r, ['out/cli/main.js'])).toBe(true);
    rmSync(join(r, 'src/a.ts'));
    expect(builtIsFresh(r, ['out/cli/main.js'])).toBe(false); // an input vanished
    writeFileSync(join(r, 'out/cli/build-info.json'), '{"builtAt": "x"');
    expect(builtIsFresh(r, ['out/cli/main.js'])).toBe(false); // corrupt record
    record([]);
    expect(builtIsFresh(r, ['out/cli/main.js'])).toBe(false); // empty record
  });
});

describe("web mode's page goes through the same freshness check", () => {
  it('a page built before an edit of src-shared (or of the page) is stale; an untouched one is fresh', () => {
    const r = join(tmp, 'page-root');
    const old = new Date(Date.now() - 60_000);
    for (const f of [
      'src-shared/protocol/a.ts',
      'src-renderer/App.svelte',
      'src-worker/x.ts',
      'out/renderer/index.html',
    ]) {
      mkdirSync(dirname(join(r, f)), { recursive: true });
      writeFileSync(join(r, f), '');
      utimesSync(join(r, f), old, old);
    }
    const outDir = join(r, 'out/renderer');
    expect(rendererIsStale(r, outDir)).toBe(true); // no record: never trusted
    recordRendererBuild(r, outDir, Date.now() - 30_000);
    expect(rendererIsStale(r, outDir)).toBe(false);
    writeFileSync(join(r, 'src-shared/protocol/a.ts'), 'edited'); // mtime now > builtAt
    expect(rendererIsStale(r, outDir)).toBe(true);
    recordRendererBuild(r, outDir, Date.now() + 1000); // rebuilt
    expect(rendererIsStale(r, outDir)).toBe(false);
    rmSync(join(r, 'out/renderer/index.html'));
    expect(rendererIsStale(r, outDir)).toBe(true);
  });
});

describe('npm start without the Electron binary', () => {
  let child: ChildProcess | undefined;
  afterAll(async () => {
    // Stop start.mjs and the web host it started (its own process group) on every path.
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      const t = setTimeout(() => {
        try {
          process.kill(-child!.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, 5_000);
      await exited;
      clearTimeout(t);
    }
  });

  it('electronBinary() is null without a binary and the path when there is one', () => {
    const empty = join(tmp, 'no-electron');
    mkdirSync(empty, { recursive: true });
    const fake = join(tmp, 'fake-electron');
    mkdirSync(fake, { recursive: true });
    // electron/index.js joins ELECTRON_OVERRIDE_DIST_PATH with path.txt's name (or 'electron').
    let exe = 'electron';
    try {
      exe = readFileSync(join(ROOT, 'node_modules/electron/path.txt'), 'utf8');
    } catch {
      /* binary never downloaded */
    }
    writeFileSync(join(fake, exe), '#!/bin/sh\n');
    chmodSync(join(fake, exe), 0o755);
    const probe = (dist: string): string =>
      spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'scripts/start.mjs')).href)}); console.log(JSON.stringify(m.electronBinary()));`,
        ],
        {
          cwd: ROOT,
          env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dist },
          encoding: 'utf8',
        },
      ).stdout.trim();
    expect(probe(empty)).toBe('null');
    expect(probe(fake)).toBe(JSON.stringify(join(fake, exe)));
  });

  it('says so in one line and serves the app in web mode', async () => {
    const configDir = join(tmp, 'config');
    child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--port', '0', '--no-build'], {
      cwd: ROOT,
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: join(tmp, 'no-electron'), MECHSTUDIO_CONFIG_DIR: configDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const url = await new Promise<string>((resolve, reject) => {
      // a hang guard
      const timer = setTimeout(() => reject(new Error(`web mode did not start within 240 s:\n${out}`)), 240_000);
      child!.stdout!.on('data', () => {
        const m = /running at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child!.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`start.mjs exited with ${code}:\n${out}`));
      });
    });
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe(
      'Electron binary is not installed (not downloaded at install time): starting Mechanism Studio in web mode instead.',
    );
    expect(out).not.toMatch(/\n\s+at /);
    // The host answers over HTTP (the token in the URL admits this client).
    const res = await fetch(url);
    expect(res.status).toBeLessThan(500);
    expect(res.status === 200 || res.status === 404).toBe(true); // 404: renderer not built here (--no-build)
  }, 300_000);
});

describe('npm install where the Electron binary cannot be downloaded', () => {
  it("npm never runs electron's own postinstall; ours does, and a failure exits 0 with one line", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      allowScripts: Record<string, boolean>;
    };
    expect(pkg.allowScripts.electron).toBe(false);
    expect(pkg.scripts.postinstall).toBe('node scripts/install-electron.mjs');
    expect(pkg.scripts.prepare).toMatch(/scripts\/build-cli\.mjs/);
    // npm test lints and checks formatting, then rebuilds the bundles before any suite runs them
    expect(pkg.scripts.test).toMatch(/^npm run lint && npm run format:check && npm run build:cli && .*vitest run$/);

    // A stand-in project whose electron/install.js fails the way a download does.
    const r = join(tmp, 'install');
    mkdirSync(join(r, 'scripts'), { recursive: true });
    mkdirSync(join(r, 'node_modules/electron'), { recursive: true });
    writeFileSync(join(r, 'scripts/install-electron.mjs'), readFileSync(join(ROOT, 'scripts/install-electron.mjs')));
    writeFileSync(
      join(r, 'node_modules/electron/install.js'),
      "console.error('RequestError: getaddrinfo ENOTFOUND github.com\\n    at ClientRequest.<anonymous> (x.js:1:1)'); process.exit(1);\n",
    );
    const env = { ...process.env };
    delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
    const failed = spawnSync(process.execPath, [join(r, 'scripts/install-electron.mjs')], { env, encoding: 'utf8' });
    expect(failed.status).toBe(0);
    expect(failed.stdout.trim().split('\n')).toHaveLength(1);
    expect(failed.stdout).toMatch(
      /could not be downloaded \(RequestError: getaddrinfo ENOTFOUND github\.com\).*web mode/,
    );

    writeFileSync(
      join(r, 'node_modules/electron/install.js'),
      "require('fs').writeFileSync(__dirname + '/ran', 'yes');\n",
    );
    const ok = spawnSync(process.execPath, [join(r, 'scripts/install-electron.mjs')], { env, encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe('');
    expect(readFileSync(join(r, 'node_modules/electron/ran'), 'utf8')).toBe('yes');

    rmSync(join(r, 'node_modules/electron/ran'));
    const skipped = spawnSync(process.execPath, [join(r, 'scripts/install-electron.mjs')], {
      env: { ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
      encoding: 'utf8',
    });
    expect(skipped.status).toBe(0);
    expect(() => readFileSync(join(r, 'node_modules/electron/ran'))).toThrow();
  });
});
