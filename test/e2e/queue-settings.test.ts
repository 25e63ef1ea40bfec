/**
 * Issue 17: the app points at a job queue in its settings (web mode in
 * Chromium, a real redis-server on a free loopback port and one `mechstudio
 * worker` process). The URL is set in Settings, a project's mechanism then
 * runs on the worker (its log names the job), the choice is kept in the
 * config dir's settings.json (mode 0600), an unreachable Redis is one line in
 * seconds (nothing changes), and "Use this computer" sends new jobs back to
 * the local pool (the worker sees none of them). Screenshots:
 * test-output/screenshots/queue-settings-*.png.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, useHarness, openApp, writeProject, openProjectFile } from './helpers';
import { starterProject } from '../../src-renderer/lib/project-model';
import { freePort, redisInstalled, startRedis, startWorker, type RedisServer, type WorkerProc } from '../integration/queue-fixture';

const haveRedis = redisInstalled();
let redis: RedisServer;
let worker: WorkerProc;
let file: string;

async function shot(name: string): Promise<void> {
  await h.page.screenshot({ path: join(SHOTS, `queue-settings-${name}.png`) });
}
/** Jobs the worker has started so far (its log has one line per job). */
const started = (): number => (worker.log().match(/job \S+ mechanism started/g) ?? []).length;

const h = useHarness({
  skip: !haveRedis,
  before: async () => {
    redis = await startRedis();
    worker = await startWorker(redis.url);
  },
  setup: async (started) => {
    const project = starterProject('queued', { id: 'line', name: 'Line of 6', domain: 'line:6' }, 'u', { id: 'tg', kind: 'tg', epsilon: 1 });
    file = writeProject(started, 'queued.mechstudio.json', project);
    await openApp(started);
  },
  after: async () => {
    await worker?.kill();
    await redis?.stop();
  },
  timeout: 240_000,
});

describe.skipIf(!haveRedis)('the app on a job queue (settings)', () => {
  it('starts on the local pool; a bad or unreachable URL is one line and changes nothing', async () => {
    const page = h.page;
    await page.getByTestId('cmd-settings').click();
    await expect.poll(() => page.getByTestId('queue-status').textContent(), { timeout: 10_000 }).toMatch(/this computer/);
    await page.getByTestId('queue-url').fill('http://127.0.0.1:6379');
    await page.getByTestId('queue-connect').click();
    await expect.poll(() => page.getByTestId('queue-error').textContent(), { timeout: 10_000 }).toMatch(/must start with redis:\/\/ or rediss:\/\//);
    const dead = await freePort();
    const t0 = Date.now();
    await page.getByTestId('queue-url').fill(`redis://user:s3cret-pw@127.0.0.1:${dead}/0`);
    await page.getByTestId('queue-connect').click();
    await expect
      .poll(() => page.getByTestId('queue-error').textContent(), { timeout: 20_000 })
      .toMatch(/cannot reach Redis at redis:\/\/\*\*\*@127\.0\.0\.1:\d+\/0/);
    // generous bound: the probe gives up after 4 s; "does not hang"
    expect(Date.now() - t0).toBeLessThan(20_000);
    const text = (await page.getByTestId('settings').textContent()) ?? '';
    expect(text).not.toContain('s3cret-pw');
    expect(await page.getByTestId('queue-status').textContent()).toMatch(/this computer/);
    await shot('01-unreachable');
  });

  it('connects: the status names the redacted URL and the worker; the choice is saved (0600) and the badge says so', async () => {
    const page = h.page;
    await page.getByTestId('queue-url').fill(redis.url);
    await page.getByTestId('queue-connect').click();
    await expect.poll(() => page.getByTestId('queue-status').textContent(), { timeout: 20_000 }).toMatch(/job queue/);
    const status = (await page.getByTestId('queue-status').textContent()) ?? '';
    expect(status).toContain(`redis://127.0.0.1:${redis.port}/0`);
    expect(status).toMatch(/1 worker connected/);
    expect(await page.getByTestId('runner-badge').textContent()).toContain('job queue');
    const settings = join(h.tmp, 'config', 'settings.json');
    expect(JSON.parse(readFileSync(settings, 'utf8'))).toEqual({ queue: redis.url });
    expect(statSync(settings).mode & 0o777).toBe(0o600);
    await shot('02-connected');
  });

  it("a project's mechanism runs on the queue worker and its result shows", async () => {
    const page = h.page;
    const before = started();
    await openProjectFile(page, file, 'queued');
    await page.getByTestId('item-mechanism-tg').click();
    await page.getByTestId('heatmap').waitFor({ timeout: 60_000 });
    await worker.waitFor(/job \S+ mechanism done/, 30_000);
    expect(started()).toBeGreaterThan(before);
    await shot('03-ran-on-queue');
  });

  it('"Use this computer": new jobs run on the local pool, the worker sees none of them', async () => {
    const page = h.page;
    await page.getByTestId('cmd-settings').click();
    await page.getByTestId('queue-local').click();
    await expect.poll(() => page.getByTestId('queue-status').textContent(), { timeout: 10_000 }).toMatch(/this computer/);
    expect(JSON.parse(readFileSync(join(h.tmp, 'config', 'settings.json'), 'utf8'))).toEqual({ queue: null });
    expect(await page.getByTestId('runner-badge').textContent()).not.toContain('job queue');
    const before = started();
    await page.getByTestId('settings-close').click();
    await page.getByTestId('cmd-compute-all').click();
    await expect
      .poll(async () => page.getByTestId('job-row').filter({ hasText: "mechanism 'tg'" }).first().getAttribute('data-status'), { timeout: 60_000 })
      .toBe('done');
    await page.getByTestId('item-mechanism-tg').click();
    await page.getByTestId('heatmap').waitFor({ timeout: 60_000 });
    expect(started()).toBe(before);
    await shot('04-back-local');
  });
});
