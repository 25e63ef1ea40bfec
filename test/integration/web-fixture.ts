/**
 * A real web-mode server for the web-*.test.ts suites: the WebSocket server,
 * MechStudioHost, the project store and a piscina Dispatcher, on a random
 * port of 127.0.0.1 with a temp renderer folder (no renderer build), and a
 * small client speaking the BridgeCall/BridgeReply frames.
 */
import { afterAll, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WebSocket } from 'ws';
import { Dispatcher } from '../../src-main/dispatcher/dispatcher';
import { ChannelStore } from '../../src-main/dispatcher/channel-store';
import { MechStudioHost } from '../../src-main/host/host';
import { createProjectStore } from '../../src-main/host/project-store';
import { startWebServer, type RunningWebServer } from '../../src-main/web/server';
import type { JobEvent } from '../../src-shared/protocol';
import { workspaceRoot } from '../../src-main/fs/workspace';
import { QueueSettings } from '../../src-main/host/queue-settings';
import { SwitchableRunner } from '../../src-main/dispatcher/switchable-runner';
import { Transfers } from '../../src-main/host/transfers';

export const ROOT = resolve(__dirname, '../..');
export const TOKEN = 'test-token-1234';

export interface Reply {
  id: number | null;
  ok: boolean;
  value?: unknown;
  error?: { code: string; message: string; detail?: Record<string, unknown> };
}

export interface Client {
  ws: WebSocket;
  /** Every frame received, raw text. */
  raw: string[];
  events: JobEvent[];
  closed: Promise<number>;
  isClosed(): boolean;
  send(frame: string): void;
  /** Send a call and wait for its reply (rejects when the socket closes first, or after `ms`). */
  call(method: string, params: unknown[], ms?: number): Promise<Reply>;
  /** Wait for a job's final event (result or error). */
  jobEnd(jobId: string, ms?: number): Promise<JobEvent>;
}

export interface TestServer {
  server: RunningWebServer;
  dispatcher: Dispatcher;
  dir: string;
  origin: string;
  /** The host's downloads and uploads (opts.transfers), else undefined. */
  transfers: Transfers | undefined;
  connect(): Promise<Client>;
  close(): Promise<void>;
}

/**
 * `channelCache`: the kept channels' cache folder (as web mode's `<config dir>/channels`); without it the host keeps
 * channels in memory only. `dir`: the server's folder, given by the caller (not removed on close: a test restarting
 * the server on the same folder removes it itself). `root`: web mode's workspace root (--root): the page's paths are
 * confined to it; without it they are not (as in the Electron app). `operatorQueue`: the host has
 * web mode's queue settings (the operator's: the page cannot change them). `transfers`: exports and saves given no
 * path become one-time downloads, and uploads are taken (as in web mode's app); without it a path is required.
 */
export async function startTestServer(
  opts: {
    threads?: number;
    dir?: string;
    channelCache?: string;
    root?: string;
    operatorQueue?: boolean;
    transfers?: boolean;
  } = {},
): Promise<TestServer> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'mechstudio-web-'));
  mkdirSync(join(dir, 'renderer'), { recursive: true });
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>t</title>');
  const channels = new ChannelStore({ cacheDir: opts.channelCache ?? null });
  const paths = opts.root !== undefined ? await workspaceRoot(opts.root) : undefined;
  // as web mode starts its pool: the workers' domain-file reads confined to the root
  const dispatcher = new Dispatcher({
    threads: opts.threads ?? 1,
    channels,
    ...(paths ? { readRoot: paths.root! } : {}),
  });
  const transfers = opts.transfers ? new Transfers() : undefined;
  const host = new MechStudioHost({
    mode: 'web',
    version: 'test',
    jobs: {
      submit: (r) => dispatcher.submit(r),
      cancel: (id) => dispatcher.cancel(id),
      stop: (id) => dispatcher.stop(id),
      onJobEvent: (l) => dispatcher.onJobEvent(l),
      workers: dispatcher.threads,
    },
    store: createProjectStore(dispatcher, {
      examplesDir: join(ROOT, 'resources/examples'),
      configDir: join(dir, 'config'),
    }),
    channels,
    ...(transfers ? { transfers } : {}),
    ...(paths ? { paths } : {}),
    ...(opts.operatorQueue
      ? {
          queue: new QueueSettings({
            runner: new SwitchableRunner(dispatcher),
            configDir: join(dir, 'config'),
            operatorOnly: true,
          }),
        }
      : {}),
  });
  const clients = new Set<WebSocket>();
  let server: RunningWebServer | undefined;
  try {
    server = await startWebServer({
      port: 0,
      rendererDir: join(dir, 'renderer'),
      api: host,
      token: TOKEN,
      ...(transfers ? { transfers } : {}),
    });
  } catch (e) {
    host.dispose();
    await dispatcher.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const s = server;
  const origin = `http://127.0.0.1:${s.port}`;
  let nextId = 1;

  const connect = async (): Promise<Client> => {
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/api?token=${TOKEN}`, { origin });
    clients.add(ws);
    ws.on('error', () => undefined);
    await new Promise<void>((res, rej) => {
      ws.once('open', () => res());
      ws.once('error', rej);
    });
    const raw: string[] = [];
    const events: JobEvent[] = [];
    const waiters = new Map<number, (r: Reply) => void>();
    const jobWaiters = new Map<string, (e: JobEvent) => void>();
    const ended = new Map<string, JobEvent>();
    let isClosed = false;
    const closed = new Promise<number>((res) => ws.once('close', (code) => ((isClosed = true), res(code))));
    ws.on('message', (d) => {
      const text = String(d);
      raw.push(text);
      const m = JSON.parse(text) as Reply & { event?: JobEvent };
      if (m.event) {
        events.push(m.event);
        if (m.event.kind === 'result' || m.event.kind === 'error') {
          ended.set(m.event.jobId, m.event);
          jobWaiters.get(m.event.jobId)?.(m.event);
        }
        return;
      }
      if (typeof m.id === 'number') waiters.get(m.id)?.(m);
    });
    return {
      ws,
      raw,
      events,
      closed,
      isClosed: () => isClosed,
      send: (frame) => ws.send(frame),
      call: (method, params, ms = 20_000) => {
        const id = nextId++;
        return new Promise<Reply>((res, rej) => {
          const t = setTimeout(() => rej(new Error(`no reply to ${method} in ${ms} ms`)), ms);
          waiters.set(id, (r) => (clearTimeout(t), waiters.delete(id), res(r)));
          void closed.then(
            (code) => (clearTimeout(t), rej(new Error(`socket closed (${code}) before the reply to ${method}`))),
          );
          ws.send(JSON.stringify({ id, method, params }));
        });
      },
      jobEnd: (jobId, ms = 60_000) => {
        const done = ended.get(jobId);
        if (done) return Promise.resolve(done);
        return new Promise<JobEvent>((res, rej) => {
          const t = setTimeout(() => rej(new Error(`job ${jobId} did not end in ${ms} ms`)), ms);
          jobWaiters.set(jobId, (e) => (clearTimeout(t), res(e)));
        });
      },
    };
  };

  return {
    server: s,
    dispatcher,
    dir,
    origin,
    transfers,
    connect,
    close: async () => {
      for (const ws of clients) ws.terminate();
      await s.close();
      host.dispose();
      await dispatcher.close();
      await transfers?.dispose();
      if (opts.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The test file's server on one pool thread with a client of it (`web.t`, `web.c`): started before the file's tests,
 * closed after them.
 */
export function useTestServer(): { readonly t: TestServer; readonly c: Client } {
  const web = {} as { t: TestServer; c: Client };
  beforeAll(async () => {
    web.t = await startTestServer({ threads: 1 });
    web.c = await web.t.connect();
  }, 60_000);
  afterAll(async () => {
    await web.t?.close();
  });
  return web;
}

/** A small job that always succeeds quickly. */
export const SMALL_JOB = { type: 'mechanism', domain: 'line:6', epsilon: 1, kind: 'tg' } as const;

/** Every file under `dir` (links not followed) with its content, or 'link' / 'dir': what an escape must not change. */
export function fileTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    out[p] = e.isFile() ? readFileSync(p, 'utf8') : e.isSymbolicLink() ? 'link' : 'dir';
  }
  return out;
}
