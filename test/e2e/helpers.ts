/**
 * E2E harness: starts web mode (`node --import tsx src-main/web/main.ts
 * --port 0`, which builds out/renderer when missing or stale) on a random
 * free port with a private config dir, and Debian's Chromium through
 * playwright-core with a fresh profile. No Electron binary is needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { readCsv } from '../../src-shared/csv/csv-reader';

export const ROOT = resolve(__dirname, '../..');
export const SHOTS = join(ROOT, 'test-output/screenshots');

export interface Harness {
  url: string;
  page: Page;
  context: BrowserContext;
  tmp: string;
  pageErrors: string[];
  close(): Promise<void>;
}

/** Chromium to drive (MECHSTUDIO_CHROMIUM overrides, e.g. to check the cleanup when it is missing). */
export const CHROMIUM = process.env.MECHSTUDIO_CHROMIUM ?? '/usr/bin/chromium';

/** Stop a started web server (SIGTERM, then SIGKILL after 5 s); safe to call twice. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(t);
}

function startServer(configDir: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src-main/web/main.ts'), '--port', '0'], {
      cwd: ROOT,
      env: { ...process.env, MECHSTUDIO_CONFIG_DIR: configDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let settled = false;
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // never leave a half-started server behind
      void stopServer(child).then(() => rej(e));
    };
    const timer = setTimeout(() => fail(new Error(`web mode did not start in time:\n${out}`)), 240_000);
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /running at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(out);
      if (m && !settled) {
        settled = true;
        clearTimeout(timer);
        res({ child, url: m[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', (e) => fail(e));
    child.on('exit', (code) => fail(new Error(`web mode exited with ${code}:\n${out}`)));
  });
}

/**
 * Browser first, then the server: when Chromium is missing or fails to
 * start, no server was started. Whatever fails after that stops both
 * before rethrowing, so a failed beforeAll leaves no process or port behind.
 */
export async function startHarness(): Promise<Harness> {
  const tmp = mkdtempSync(join(tmpdir(), 'mechstudio-e2e-'));
  let context: BrowserContext | undefined;
  let child: ChildProcess | undefined;
  try {
    mkdirSync(SHOTS, { recursive: true });
    context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      acceptDownloads: true,
      viewport: { width: 1440, height: 900 },
    });
    const started = await startServer(join(tmp, 'config'));
    child = started.child;
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const ctx = context;
    const srv = child;
    return {
      url: started.url,
      page,
      context: ctx,
      tmp,
      pageErrors,
      close: async () => {
        try {
          await ctx.close().catch(() => undefined);
        } finally {
          await stopServer(srv);
          rmSync(tmp, { recursive: true, force: true });
        }
      },
    };
  } catch (e) {
    await context?.close().catch(() => undefined);
    if (child) await stopServer(child);
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** Parse a SPEC §8 channel CSV (labels may be quoted). */
export function parseChannelCsv(text: string): { colLabels: string[]; rowLabels: string[]; rows: number[][] } {
  const read = readCsv(text);
  if (!read.ok) throw new Error(read.problem.message);
  const [head, ...body] = read.rows.map((r) => r.fields);
  return { colLabels: head!.slice(1), rowLabels: body.map((r) => r[0]!), rows: body.map((r) => r.slice(1).map(Number)) };
}

/** A new, untitled project (discarding the current one if the app asks). */
export async function newProject(page: Page): Promise<void> {
  await page.getByTestId('cmd-new').click();
  if (await page.getByTestId('confirm-dialog').isVisible()) await page.getByTestId('confirm-discard').click();
  await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 }).toContain('Untitled');
}
