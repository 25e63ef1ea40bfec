/**
 * E2E harness: starts web mode (the host `npm run web` starts: the bundle
 * out/web/main.js when it is fresh, as after `npm test`'s build:cli, else
 * `node --import tsx src-main/web/main.ts`; either builds out/renderer when
 * missing or stale) with --port 0 on a random free port with a private
 * config dir, and Debian's Chromium through playwright-core with a fresh
 * profile. No Electron binary is needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { builtIsFresh } from '../../scripts/built-fresh.mjs';
import { readCsv } from '../../src-shared/csv/csv-reader';
import { EARTH_RADIUS_KM } from '../../src-shared/data/points-grid';
import { evaluateNumberExpression } from '../../src-shared/numeric/number-expression';

export const ROOT = resolve(__dirname, '../..');
export const SHOTS = join(ROOT, 'test-output/screenshots');

export interface Harness {
  url: string;
  page: Page;
  context: BrowserContext;
  tmp: string;
  pageErrors: string[];
  /** Stop the web server and start a new one on the same port, token and config dir (the page's URL stays valid). */
  restartServer(): Promise<void>;
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

/**
 * How web mode's host is started, as scripts/start.mjs starts it: the built bundle when no source went into it
 * since it was built (it then also runs the bundled worker, and starts in a fraction of the time tsx takes to
 * load the sources), else the sources through tsx.
 */
function webHostArgs(): string[] {
  return builtIsFresh(ROOT, ['out/web/main.js', 'out/worker/worker-entry.js'])
    ? [join(ROOT, 'out/web/main.js')]
    : ['--import', 'tsx', join(ROOT, 'src-main/web/main.ts')];
}

/** Web mode with the harness's folder as its workspace root (the page's paths lead there only) and `env` added. */
function startServer(
  tmp: string,
  env: Record<string, string>,
  again?: { port: string; token: string },
): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [...webHostArgs(), '--port', again?.port ?? '0', '--root', tmp], {
      cwd: ROOT,
      env: {
        ...process.env,
        MECHSTUDIO_CONFIG_DIR: join(tmp, 'config'),
        ...env,
        ...(again ? { MECHSTUDIO_WEB_TOKEN: again.token } : {}),
      },
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
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const tmp = mkdtempSync(join(tmpdir(), 'mechstudio-e2e-'));
  let context: BrowserContext | undefined;
  let child: ChildProcess | undefined;
  try {
    mkdirSync(SHOTS, { recursive: true });
    context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      acceptDownloads: true,
      viewport: { width: 1440, height: 900 },
    });
    const started = await startServer(tmp, env);
    child = started.child;
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const ctx = context;
    let srv = child;
    return {
      url: started.url,
      page,
      context: ctx,
      tmp,
      pageErrors,
      restartServer: async () => {
        const u = new URL(started.url);
        const token = u.searchParams.get('token') ?? /#.*token=([^&]+)/.exec(started.url)?.[1] ?? '';
        await stopServer(srv);
        const again = await startServer(tmp, env, { port: u.port, token: decodeURIComponent(token) });
        if (again.url !== started.url) throw new Error(`the restarted server is at ${again.url}, not ${started.url}`);
        srv = again.child;
      },
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

export interface HarnessOptions {
  /** Before the harness starts: services the app is to reach (e.g. a queue). */
  before?: () => Promise<void>;
  /** Once the harness has started: files to write, the page to open. */
  setup?: (h: Harness) => Promise<void>;
  /** After the harness is closed: stop what `before` started (runs even when start-up failed). */
  after?: () => Promise<void>;
  /** The start-up's time limit (beforeAll's timeout; vitest's hookTimeout when absent). */
  timeout?: number;
  /** Environment of the web server, read once `before` has run (e.g. the operator's MECHSTUDIO_QUEUE). */
  env?: () => Record<string, string>;
  /** Start nothing (a suite skipped on this machine). */
  skip?: boolean;
}

/**
 * The test file's harness: registers the beforeAll that starts it (then runs `setup`) and the afterAll that closes it,
 * and returns a view that reads the started harness (so tests and module-level helpers write `h.page`, `h.tmp`).
 */
export function useHarness(opts: HarnessOptions = {}): Harness {
  let current: Harness | undefined;
  beforeAll(async () => {
    if (opts.skip) return;
    await opts.before?.();
    current = await startHarness(opts.env?.() ?? {});
    await opts.setup?.(current);
  }, opts.timeout);
  afterAll(async () => {
    await current?.close();
    await opts.after?.();
  });
  return new Proxy({} as Harness, {
    get: (_target, key) => {
      if (!current) throw new Error('the e2e harness is not started (used outside a test, or its start-up failed)');
      return Reflect.get(current, key) as unknown;
    },
  });
}

/**
 * A small project of the user's own (a 12-point street, one mechanism): the web-mode flow tests open, save and reopen
 * it.
 */
export const STREET_STUDY = {
  version: 1,
  name: 'my street study',
  domains: [{ id: 'street', domain: 'line:12' }],
  priors: [],
  mechanisms: [{ id: 'tg', domain: 'street', kind: 'tg', epsilon: 0.5 }],
  analyses: [],
};

/** Write `project` as JSON to NAME in the harness's private projects folder; returns its path. */
export function writeProject(h: Harness, name: string, project: unknown): string {
  const dir = join(h.tmp, 'projects');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(project));
  return file;
}

/**
 * Open or save by a path on the server (the dialog's explicit alternative to upload and download): the command's
 * button, "…on the server", the path, OK (first discarding the current project if asked and `discardIfAsked`).
 */
export async function choosePath(
  page: Page,
  command: 'cmd-open' | 'cmd-save-as',
  path: string,
  discardIfAsked = false,
): Promise<void> {
  await page.getByTestId(command).click();
  if (discardIfAsked && (await page.getByTestId('confirm-dialog').isVisible()))
    await page.getByTestId('confirm-discard').click();
  await page.getByTestId('path-server').click();
  await page.getByTestId('path-input').fill(path);
  await page.getByTestId('path-ok').click();
}

/** Open the project file at `path` and wait (30 s at most) until the title names it by `title`. */
export async function openProjectFile(page: Page, path: string, title: string): Promise<void> {
  await choosePath(page, 'cmd-open', path);
  await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 }).toContain(title);
}

/**
 * Open the geo example made small (a 20 x 20 grid, a 10 x 10 city of a lumpy population, the full-resolution LP within
 * 10 s) from FILE in the projects folder, its data file copied into that folder (a file outside it would be listed and
 * asked about first), renamed `name` when given; waits until the title says its name.
 */
export async function openSmallGeo(h: Harness, file: string, name?: string): Promise<void> {
  mkdirSync(join(h.tmp, 'projects/data'), { recursive: true });
  copyFileSync(join(ROOT, 'resources/data/city-population.csv'), join(h.tmp, 'projects/data/city-population.csv'));
  const text = readFileSync(join(ROOT, 'resources/examples/geo.json'), 'utf8').replaceAll('csv:../data/', 'csv:data/');
  const geo = JSON.parse(text) as { name: string; caseStudies: { params: Record<string, unknown> }[] };
  if (name !== undefined) geo.name = name;
  const population = Array.from({ length: 100 }, (_, i) => 1 + ((i * 37) % 11));
  Object.assign(geo.caseStudies[0]!.params, {
    size: 20,
    citySide: 10,
    population,
    fullLpEpsilons: [1],
    fullLpTimeLimit: 10,
  });
  await choosePath(h.page, 'cmd-open', writeProject(h, file, geo), true);
  await expect.poll(() => h.page.getByTestId('doc-title').textContent(), { timeout: 30_000 }).toContain(geo.name);
}

/** A square on the map: its centre, its half-sides in degrees, and the points-import box text. */
export interface MapSquare {
  lat0: number;
  lon0: number;
  dlat: number;
  dlon: number;
  /** lon,lat of the south-west then the north-east corner, as the points box takes it. */
  box: string;
  /** The CSV line lat,lon of the point at fractions (fy, fx) of the square's height and width from its south-west. */
  at(fy: number, fx: number): string;
}

/** The square of half-side `halfKm` km around (lat0, lon0): a great-circle arc north, shortened by cos(lat) east. */
export function squareAround(lat0: number, lon0: number, halfKm: number): MapSquare {
  const dlat = halfKm / ((EARTH_RADIUS_KM * Math.PI) / 180);
  const dlon = dlat / Math.cos((lat0 * Math.PI) / 180);
  return {
    lat0,
    lon0,
    dlat,
    dlon,
    box: `${lon0 - dlon},${lat0 - dlat},${lon0 + dlon},${lat0 + dlat}`,
    at: (fy, fx) => `${lat0 - dlat + 2 * dlat * fy},${lon0 - dlon + 2 * dlon * fx}`,
  };
}

/**
 * Import prior `id`'s points from the lat,lon CSV at `csv`, binned inside `box` (lon,lat corners), and wait until its
 * editor says what it recorded (`recorded`).
 */
export async function importPoints(page: Page, id: string, box: string, csv: string, recorded: string): Promise<void> {
  await page.getByTestId(`item-prior-${id}`).click();
  await page.getByTestId('points-box').fill(box);
  await page.getByTestId('points-box').dispatchEvent('change');
  await page.getByTestId('points-file').setInputFiles(csv);
  await expect.poll(() => page.getByTestId('points-recorded').textContent()).toContain(recorded);
}

/** Select mechanism `id` in the sidebar and compute it. */
export async function computeMechanism(page: Page, id: string): Promise<void> {
  await page.getByTestId(`item-mechanism-${id}`).click();
  await page.getByTestId('compute').click();
}

/**
 * Click `testid` and save the browser download it starts (web mode's exports) at `path`, waiting `timeout` ms at most
 * for it to start; returns its suggested name.
 */
export async function downloadTo(page: Page, testid: string, path: string, timeout = 60_000): Promise<string> {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout }), page.getByTestId(testid).click()]);
  await d.saveAs(path);
  return d.suggestedFilename();
}

/** Parse a SPEC §8 channel CSV (labels may be quoted). */
export function parseChannelCsv(text: string): { colLabels: string[]; rowLabels: string[]; rows: number[][] } {
  const read = readCsv(text);
  if (!read.ok) throw new Error(read.problem.message);
  const [head, ...body] = read.rows.map((r) => r.fields);
  return {
    colLabels: head!.slice(1),
    rowLabels: body.map((r) => r[0]!),
    rows: body.map((r) => r.slice(1).map(Number)),
  };
}

/** A new, untitled project (discarding the current one if the app asks). */
export async function newProject(page: Page): Promise<void> {
  await page.getByTestId('cmd-new').click();
  // The app either asks first (unsaved changes) or opens the new project at once; the dialog may
  // appear a moment after the click, so wait for one of the two rather than looking once.
  const dialog = page.getByTestId('confirm-dialog');
  const title = page.getByTestId('doc-title');
  await expect
    .poll(async () => (await dialog.isVisible()) || ((await title.textContent()) ?? '').includes('Untitled'), {
      timeout: 30_000,
    })
    .toBe(true);
  if (await dialog.isVisible()) await page.getByTestId('confirm-discard').click();
  await expect.poll(() => title.textContent(), { timeout: 30_000 }).toContain('Untitled');
}

/** A screenshot of the page as test-output/screenshots/NAME.png (looked at by the developers). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** Fill a number input and fire its change event (the editors commit on change). */
export async function setNumberField(page: Page, testid: string, value: number): Promise<void> {
  const el = page.getByTestId(testid);
  await el.fill(String(value));
  await el.dispatchEvent('change');
}

/** A new project whose city domain is a rows x cols grid of 0.5 km cells (waits until the domain text says so). */
export async function newCityGrid(page: Page, rows: number, cols: number): Promise<void> {
  await newProject(page);
  // Click the new project's city domain until its editor shows (a click landing while the sidebar
  // is being replaced selects nothing).
  const rowsField = page.getByTestId('grid-rows');
  await expect
    .poll(
      async () => {
        if (!(await rowsField.isVisible())) await page.getByTestId('item-domain-city').click();
        return rowsField.isVisible();
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  await setNumberField(page, 'grid-rows', rows);
  await setNumberField(page, 'grid-cols', cols);
  await expect
    .poll(() => page.getByTestId('domain-text').textContent(), { timeout: 30_000 })
    .toBe(`grid:${rows}x${cols}:step=0.5`);
}

/** Add an analysis from the "add analysis" menu (by its label), run it and wait for `resultTestId`; no error shown. */
export async function runNewAnalysis(page: Page, label: string, resultTestId: string): Promise<void> {
  await page.getByTestId('add-analysis').click();
  await page.getByRole('button', { name: label }).click();
  await page.getByTestId('run-analysis').click();
  await page.getByTestId(resultTestId).waitFor({ timeout: 120_000 });
  expect(await page.getByTestId('result-error').count()).toBe(0);
}

/**
 * Open the app's page and wait for the sidebar and for the start-up example (the city) to be the document: before it
 * loads, the page shows an empty "Untitled" document, and a New clicked then is overtaken by the example (its jobs and
 * its domain are then mistaken for the test's).
 */
export async function openApp(h: Harness): Promise<void> {
  await h.page.goto(h.url);
  await h.page.getByTestId('sidebar').waitFor({ timeout: 120_000 });
  await h.page
    .getByTestId('doc-title')
    .filter({ hasText: /city|City/ })
    .waitFor({ timeout: 60_000 });
}

/**
 * Pixels of a canvas passing a colour test, and the canvas' pixel count: `coloured` (drawn, neither white nor grey:
 * channels more than 40 apart), `black` or `dark` (opaque, every channel below 30 or 110).
 */
export function countPixels(
  canvas: Locator,
  test: 'coloured' | 'black' | 'dark',
): Promise<{ n: number; total: number }> {
  return canvas.evaluate((el, t) => {
    const c = el as unknown as {
      width: number;
      height: number;
      getContext(
        t: string,
      ): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
    };
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let k = 0; k < d.length; k += 4) {
      const [r, g, b, a] = [d[k]!, d[k + 1]!, d[k + 2]!, d[k + 3]!];
      if (t === 'coloured') {
        if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 40) n++;
      } else if (a >= 200 && (t === 'black' ? r < 30 && g < 30 && b < 30 : r < 110 && g < 110 && b < 110)) n++;
    }
    return { n, total: c.width * c.height };
  }, test);
}

/** Open a built-in example from the Examples menu (discarding unsaved changes when asked) and wait for its title. */
export async function openExample(page: Page, name: string, title: string): Promise<void> {
  await page.getByTestId('cmd-examples').click();
  await page.getByTestId(`example-${name}`).click();
  if (await page.getByTestId('confirm-dialog').isVisible()) await page.getByTestId('confirm-discard').click();
  await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 }).toContain(title);
}

/**
 * A number field's value as the app reads it: the field may show an expression (ε = ln 4 is shown as "ln 4"); NaN when
 * it is not a number.
 */
export async function numberFieldValue(page: Page, testid: string): Promise<number> {
  const r = evaluateNumberExpression(await page.getByTestId(testid).inputValue());
  return r.ok ? r.value : NaN;
}
