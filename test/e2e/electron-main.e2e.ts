/**
 * The BUILT Electron main process (out/main/index.js, out/main/worker.js),
 * run under plain Node with a stand-in 'electron' module (electron-mock/):
 * secure window options, native menus, IPC validation and a real job through
 * the dispatcher and worker bundle. No Electron binary is needed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers';

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

interface Report {
  webPreferences: Record<string, unknown>;
  loaded: string;
  menu: string[];
  fileMenu: string[];
  examplesMenu: string[];
  info: { ok: boolean; value: { mode: string; workers: number } };
  examples: { ok: boolean; value: { name: string }[] };
  foreign: { ok: boolean; error: { code: string; message: string } };
  badRequest: { ok: boolean; error: { code: string; message: string } };
  outPath: { ok: boolean; error: { code: string; message: string } };
  submit: { ok: boolean; value: string };
  events: { kind: string; jobId: string; result?: { utility: number; matrix: { data: number[] } } }[];
  navigationBlocked: boolean;
  windowOpen: { action: string };
  permission: boolean;
  remoteRequest: { cancel: boolean };
  fileRequest: { cancel: boolean };
  report: { ok: boolean; value?: { files: string[] }; error?: { message: string } };
  reportPage: { checked?: boolean; chart?: boolean; maps?: number; error?: string };
}

let report: Report;
let tmp: string;

beforeAll(() => {
  const main = join(ROOT, 'out/main/index.js');
  const stale =
    !existsSync(main) ||
    !existsSync(join(ROOT, 'out/preload/index.cjs')) ||
    Math.max(newest(join(ROOT, 'src-main')), newest(join(ROOT, 'src-worker'))) > statSync(main).mtimeMs;
  if (stale) {
    const b = spawnSync(process.execPath, [join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (b.status !== 0) throw new Error(`electron-vite build failed:\n${b.stdout}\n${b.stderr}`);
  }
  tmp = mkdtempSync(join(tmpdir(), 'mechstudio-electron-'));
  const r = spawnSync(process.execPath, [join(ROOT, 'test/e2e/electron-mock/run-main.mjs'), ROOT], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, MECHSTUDIO_CONFIG_DIR: tmp },
    timeout: 120_000,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`main process run failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  report = JSON.parse(line) as Report;
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('Electron main process (built bundle, mocked electron module)', () => {
  it('opens one window with secure defaults on the built renderer', () => {
    expect(report.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    });
    expect(String(report.webPreferences.preload)).toMatch(/out\/preload\/index\.cjs$/);
    expect(report.loaded).toMatch(/out\/renderer\/index\.html$/);
  });

  it('blocks navigation, new windows, permissions and remote requests', () => {
    expect(report.navigationBlocked).toBe(true);
    expect(report.windowOpen).toEqual({ action: 'deny' });
    expect(report.permission).toBe(false);
    expect(report.remoteRequest).toEqual({ cancel: true });
    expect(report.fileRequest).toEqual({ cancel: false });
  });

  it('has File (New, Open, Open Recent, Save, Save As, Export CSV, Export PNG, Study Report), Examples and Help menus', () => {
    expect(report.menu).toEqual(expect.arrayContaining(['&File', 'E&xamples', '&Help']));
    expect(report.fileMenu).toEqual(
      expect.arrayContaining([
        'New Project',
        'Open…',
        'Open Recent',
        'Save',
        'Save As…',
        'Export CSV…',
        'Export PNG…',
        'Study Report…',
      ]),
    );
  });

  it('lists every project of resources/examples in the native Examples menu, by title', () => {
    const files = readdirSync(join(ROOT, 'resources/examples'))
      .filter((f) => f.endsWith('.json'))
      .sort();
    const titles = files.map(
      (f) => (JSON.parse(readFileSync(join(ROOT, 'resources/examples', f), 'utf8')) as { name: string }).name,
    );
    expect(report.examplesMenu).toEqual(titles);
    expect(report.examples.value.map((e) => e.name)).toEqual(files.map((f) => f.slice(0, -5)));
  });

  it('answers API calls from the app page only and validates every job request', () => {
    expect(report.info).toMatchObject({ ok: true, value: { mode: 'electron' } });
    expect(report.examples.value.map((e) => e.name)).toContain('city');
    expect(report.foreign).toEqual({ ok: false, error: { code: 'invalid-input', message: 'caller is not the app' } });
    expect(report.badRequest.error.code).toBe('invalid-input');
    expect(report.badRequest.error.message).toContain('epsilon');
    expect(report.outPath.error.message).toContain('"out" is not accepted');
  });

  it('writes the study report from the bundle: the kept channel checked again, the chart drawn on the native canvas', () => {
    expect(report.report.ok, report.report.error?.message).toBe(true);
    expect(report.report.value!.files).toHaveLength(1);
    expect(report.reportPage).toEqual({ checked: true, chart: true, maps: 2 });
  });

  it('runs a job on the worker bundle: TG on 0..5 with alpha = 1/2 (SPEC §7)', () => {
    expect(report.submit.ok).toBe(true);
    const done = report.events.find((e) => e.jobId === report.submit.value && e.kind === 'result');
    expect(done).toBeDefined();
    const r = done!.result!;
    expect(r.utility).toBeCloseTo(4 / 9, 12);
    expect(r.matrix.data.slice(0, 6).map((v) => v * 48)).toEqual([32, 8, 4, 2, 1, 1].map((v) => expect.closeTo(v, 10)));
  });
});
