/**
 * The desktop build (electron-vite, electron.vite.config.ts) bundles the engine's worker threads: every
 * `new URL("./X.ts", import.meta.url)` the built main process keeps (base/worker-module.ts looks for X.js next to
 * the code that asks) has its X.js beside it, and the bundled pricing thread answers an exact pricing. Without
 * them the desktop app priced and checked on one thread. Built into a scratch folder under out/ (no Electron binary
 * needed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let out = '';

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsFiles(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );
}

beforeAll(() => {
  // Inside the project (out/), so that the bundle's external packages (highs) resolve from node_modules.
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  out = mkdtempSync(join(ROOT, 'out', 'electron-test-'));
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--outDir', out, '--logLevel', 'error'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`electron-vite build failed: ${r.stderr || r.stdout}`);
}, 300_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('the Electron main bundle', () => {
  it("finds the pricing, the check and the master's helper threads next to the code that starts them", () => {
    const wanted = new Set<string>();
    for (const file of jsFiles(join(out, 'main'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/new URL\("\.\/([\w-]+)\.ts", import\.meta\.url\)/g)) {
        const target = join(dirname(file), `${m[1]}.js`);
        wanted.add(m[1]!);
        expect(existsSync(target), `${target} (asked for by ${file})`).toBe(true);
      }
    }
    expect([...wanted].sort()).toEqual(['check-worker', 'master-worker', 'pricing-worker']);
  });

  it('its pricing thread prices exactly: min v . r over a 3-point line at factor e per step', async () => {
    const file = jsFiles(join(out, 'main')).find((f) => f.endsWith('/pricing-worker.js'))!;
    const worker = new Worker(file);
    try {
      const call = (msg: unknown): Promise<Record<string, unknown>> =>
        new Promise((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
          worker.postMessage(msg);
        });
      // Points 0, 1, 2 on a line, ln f = distance: G = e^-|a-b|.
      const G = Float64Array.from({ length: 9 }, (_, k) => Math.exp(-Math.abs((k % 3) - Math.floor(k / 3))));
      const empty = { from: new Int32Array(0), to: new Int32Array(0), factor: new Float64Array(0) };
      const opened = await call({
        type: 'open',
        n: 3,
        m: 1,
        rows: empty,
        groupSize: 1,
        thread: 0,
        threads: 1,
        what: 'bundle test',
        factors: G,
      });
      expect(opened['type']).toBe('opened');
      // v = (-1, 0.5, 0.5): r = (1, 1/e, 1/e^2) is optimal, value -1 + 0.5/e + 0.5/e^2.
      const v = Float64Array.of(-1, 0.5, 0.5);
      const priced = await call({
        type: 'price',
        outputs: Int32Array.of(0),
        v,
        stopFlag: new Int32Array(new SharedArrayBuffer(4)),
        retryTolerance: 0,
      });
      const want = -1 + 0.5 / Math.E + 0.5 / Math.E ** 2;
      expect(priced['done']).toBe(1);
      expect((priced['objective'] as Float64Array)[0]).toBeCloseTo(want, 14);
      expect((priced['safeBound'] as Float64Array)[0]).toBeCloseTo(want, 14);
    } finally {
      await worker.terminate();
    }
  });
});
