/**
 * The app on a job queue in web mode (Chromium, a real redis-server on a free
 * loopback port and one `mechstudio worker` process). The queue is the
 * server operator's: web mode starts with MECHSTUDIO_QUEUE, the Settings page
 * shows it (redacted URL, worker count, where it came from) and offers no way
 * to change it (a page calling queue.connect itself is refused:
 * test/integration/web-workspace.test.ts), nothing is saved, and a project's
 * mechanism runs on the worker.
 * (The Electron app keeps its settings field: QueueSettings'
 * connect/useLocal, test/unit/main/dispatcher/switchable-runner.test.ts.)
 * Screenshots: test-output/screenshots/queue-settings-*.png.
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS, useHarness, openApp, writeProject, openProjectFile } from './helpers';
import { starterProject } from '../../src-renderer/lib/project-model';
import {
  redisInstalled,
  startRedis,
  startWorker,
  type RedisServer,
  type WorkerProc,
} from '../integration/queue-fixture';

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
  env: () => ({ MECHSTUDIO_QUEUE: redis.url }),
  setup: async (started) => {
    const project = starterProject('queued', { id: 'line', name: 'Line of 6', domain: 'line:6' }, 'u', {
      id: 'tg',
      kind: 'tg',
      epsilon: 1,
    });
    file = writeProject(started, 'queued.mechstudio.json', project);
    await openApp(started);
  },
  after: async () => {
    await worker?.kill();
    await redis?.stop();
  },
  timeout: 240_000,
});

describe.skipIf(!haveRedis)("the app on the operator's job queue (web mode)", () => {
  it('Settings shows the queue read-only: redacted URL, the worker, set by the operator; no field to change it', async () => {
    const page = h.page;
    await page.getByTestId('cmd-settings').click();
    await expect.poll(() => page.getByTestId('queue-status').textContent(), { timeout: 20_000 }).toMatch(/job queue/);
    const status = (await page.getByTestId('queue-status').textContent()) ?? '';
    expect(status).toContain(`redis://127.0.0.1:${redis.port}/0`);
    expect(status).toMatch(/1 worker connected/);
    expect(status).toMatch(/set by --queue \/ MECHSTUDIO_QUEUE/);
    expect(await page.getByTestId('queue-operator').textContent()).toMatch(/cannot change it/);
    expect(await page.getByTestId('queue-url').count()).toBe(0);
    expect(await page.getByTestId('queue-connect').count()).toBe(0);
    expect(await page.getByTestId('runner-badge').textContent()).toContain('job queue');
    // the operator's choice is not the page's to keep: no settings file is written
    expect(existsSync(join(h.tmp, 'config', 'settings.json'))).toBe(false);
    await shot('01-operator-queue');
    await page.getByTestId('settings-close').click();
  });

  it("a project's mechanism runs on the queue worker and its result shows", async () => {
    const page = h.page;
    const before = started();
    await openProjectFile(page, file, 'queued');
    await page.getByTestId('item-mechanism-tg').click();
    await page.getByTestId('heatmap').waitFor({ timeout: 60_000 });
    await worker.waitFor(/job \S+ mechanism done/, 30_000);
    expect(started()).toBeGreaterThan(before);
    await shot('02-ran-on-queue');
  });
});
