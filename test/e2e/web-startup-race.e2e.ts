/**
 * Web mode's start-up race (Debian Chromium): a reload returns to the user's last project (kept in the server's
 * workspace), and while that reopen is still on its way the user opens an example. The example must stay: the late
 * reply of the reopen is dropped (AppState.beginOpen / isLatestOpen), and the next reload returns to the example.
 * The reopen is held deterministically: the page's WebSocket to /api is routed through the test, which keeps the
 * start-up's `project.open` call back until the example is on screen, then sends it on and waits for its reply.
 * Screenshot: test-output/screenshots/web-race-*.png.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WebSocketRoute } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openApp, screenshot, useHarness, STREET_STUDY } from './helpers';

const project = STREET_STUDY;

const h = useHarness({ setup: openApp, timeout: 240_000 });

/** A promise with its resolve, to wait on an event of the routed socket. */
function signal<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Route the page's API socket through the test: every frame passes, except the first `project.open` call, which is
 * held until release() (it then goes on, and `replied` resolves once its reply has been handed to the page).
 */
async function holdFirstOpen(): Promise<{ held: Promise<void>; release: () => void; replied: Promise<void> }> {
  const held = signal<void>();
  const replied = signal<void>();
  let heldFrame: { frame: string; id: number } | null = null;
  let server: WebSocketRoute | null = null;
  let done = false;
  await h.page.routeWebSocket(
    (url) => url.pathname === '/api',
    (ws) => {
      const srv = ws.connectToServer();
      server = srv;
      ws.onMessage((m) => {
        const call = JSON.parse(String(m)) as { id: number; method?: string };
        if (!done && heldFrame === null && call.method === 'project.open') {
          heldFrame = { frame: String(m), id: call.id };
          held.resolve();
          return;
        }
        srv.send(m);
      });
      srv.onMessage((m) => {
        ws.send(m);
        const reply = JSON.parse(String(m)) as { id?: number };
        if (heldFrame && reply.id === heldFrame.id) replied.resolve();
      });
    },
  );
  return {
    held: held.promise,
    release: () => {
      done = true;
      server!.send(heldFrame!.frame);
    },
    replied: replied.promise,
  };
}

describe('web mode: a project opened during the start-up reopen stays', () => {
  it("the user's example is not replaced by the last project's reopen arriving after it", async () => {
    const page = h.page;
    const file = join(h.tmp, 'street.mechstudio.json');
    writeFileSync(file, JSON.stringify(project));
    // the last project: an upload, kept in the server's workspace
    await page.getByTestId('cmd-open').click();
    await page.getByTestId('path-dialog').waitFor();
    await page.getByTestId('project-upload').setInputFiles(file);
    await expect
      .poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 })
      .toContain('my street study');

    const route = await holdFirstOpen();
    await page.reload();
    await route.held; // the start-up's reopen of the street study is on its way, held
    await page.getByTestId('cmd-examples').click();
    await page.getByTestId('example-voting').click();
    await expect.poll(() => page.getByTestId('doc-title').textContent(), { timeout: 30_000 }).toContain('Voting');
    const title = (await page.getByTestId('doc-title').textContent())!;
    // the example is on screen at once, not behind "Loading the project…" (asserted below, once the reopen is answered)
    const loadingWhileHeld = await page.locator('main .loading').count();
    const startupWhileHeld = await page.getByTestId('main').getAttribute('data-startup');

    route.release();
    await route.replied;
    // the start-up has settled (or, were it wrong, the reopen replaced the example)
    await page
      .locator('[data-startup="done"]')
      .or(page.getByTestId('doc-title').filter({ hasText: 'my street study' }))
      .first()
      .waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('doc-title').textContent()).toBe(title);
    expect(await page.getByTestId('doc-path').textContent()).toBe('not saved');
    expect({ loadingWhileHeld, startupWhileHeld }).toEqual({ loadingWhileHeld: 0, startupWhileHeld: 'opening' });
    await screenshot(page, 'web-race-01-example-kept');

    // the example is now the last project: a reload returns to it
    await page.reload();
    await page.locator('[data-startup="done"]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('doc-title').textContent()).toBe(title);
    expect(h.pageErrors).toEqual([]);
  }, 240_000);
});
