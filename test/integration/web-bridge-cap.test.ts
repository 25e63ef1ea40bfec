/**
 * The page's WebSocket bridge (src-renderer/lib/bridge.ts) against the real
 * web-mode server: a call over the message cap is refused by the page with a
 * typed 'too-large' error and never sent, so the connection and the jobs on
 * it stay (a closed socket used to lose the page's jobs); an apply upload
 * over the app's secrets limit is refused by the host with 'too-large' on
 * the same connection. (The server's side of the bound, a frame over the cap
 * from another client answered 'too-large', is in web-hostile.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { WebSocket as NodeWebSocket } from 'ws';
import {
  ApiError,
  MAX_APP_SECRETS_CHARS,
  MAX_BRIDGE_MESSAGE_BYTES,
  type MechStudioApi,
} from '../../src-shared/protocol/api';
import type { JobEvent } from '../../src-shared/protocol/messages';
import { SMALL_JOB, startTestServer, TOKEN, type TestServer } from './web-fixture';

let t: TestServer;
let api: MechStudioApi;
const events: JobEvent[] = [];
const sent: number[] = [];
let opened = 0;
const realWebSocket = (globalThis as { WebSocket?: unknown }).WebSocket;

beforeAll(async () => {
  t = await startTestServer({ threads: 1 });
  const origin = t.origin;
  // the browser's WebSocket, as the page sees it: same origin; every frame it sends is counted
  class PageWebSocket extends NodeWebSocket {
    constructor(url: string) {
      super(url, { origin });
      opened++;
    }
    override send(data: string): void {
      sent.push(Buffer.byteLength(data));
      super.send(data);
    }
  }
  (globalThis as { WebSocket?: unknown }).WebSocket = PageWebSocket;
  // the page's module type-checks with the DOM library (tsconfig.renderer.json), not in this Node program: loaded by a
  // computed path
  const bridgeModule = '../../src-renderer/lib/bridge';
  const { createWebSocketApi } = (await import(/* @vite-ignore */ bridgeModule)) as {
    createWebSocketApi: (url: string) => MechStudioApi;
  };
  api = createWebSocketApi(`ws://127.0.0.1:${t.server.port}/api?token=${TOKEN}`);
  api.onJobEvent((e) => events.push(e));
}, 60_000);

afterAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket = realWebSocket;
  await t?.close();
});

async function jobEnd(jobId: string): Promise<JobEvent> {
  // polls for the job's end event; 120 s is a hang guard
  for (let i = 0; i < 2400; i++) {
    const e = events.find((x) => x.jobId === jobId && (x.kind === 'result' || x.kind === 'error'));
    if (e) return e;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no end for ${jobId}`);
}

describe('calls over the message cap from the page', () => {
  it('refused typed before sending; the connection and its running job stay', async () => {
    const running = await api.submit({ ...SMALL_JOB, epsilon: 0.9 });
    const before = sent.length;
    // 9M zeros: 18 MiB of JSON, over the 16 MiB cap
    const huge = { ...SMALL_JOB, prior: { kind: 'vector' as const, values: new Array<number>(9_000_000).fill(0) } };
    const err = await api.submit(huge).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      code: 'too-large',
      message: expect.stringMatching(/^this call is 17\.2 MiB, over the 16 MiB one message to the server may carry/),
    });
    expect(sent.length).toBe(before); // never sent
    expect((await jobEnd(running)).kind).toBe('result');
    expect((await api.info()).mode).toBe('web');
    expect(opened).toBe(1); // the same connection throughout
  });

  it('apply upload: over the app limit refused by the host (too-large), over the message cap refused by the page; the connection stays', async () => {
    const request = { mechanism: { domain: 'line:6', epsilon: 1, kind: 'rr' } };
    const path = join(t.dir, 'released.csv');
    // lines of 20 characters: JSON escapes their line ends, one byte each, and the message stays under the cap
    const overApp = `value\n${'123456789,123456789\n'.repeat(Math.ceil(MAX_APP_SECRETS_CHARS / 20))}`;
    expect(Buffer.byteLength(JSON.stringify(overApp))).toBeLessThan(MAX_BRIDGE_MESSAGE_BYTES);
    await expect(api.project.export({ kind: 'apply', request, secrets: overApp, path })).rejects.toMatchObject({
      code: 'too-large',
      message: expect.stringMatching(
        /^apply: the secrets CSV has 12582926 characters, over the app's limit of 12582912; use mechstudio apply/,
      ),
    });
    const before = sent.length;
    const overFrame = `value\n${'1\n'.repeat(MAX_BRIDGE_MESSAGE_BYTES / 2)}`;
    await expect(api.project.export({ kind: 'apply', request, secrets: overFrame, path })).rejects.toMatchObject({
      code: 'too-large',
    });
    expect(sent.length).toBe(before);
    const small = await api.project.export({ kind: 'apply', request, secrets: 'value\n1\n2\n', path });
    expect(small.apply!.result.rows).toBe(2);
    expect(opened).toBe(1);
  });
});
