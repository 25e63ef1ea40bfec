/**
 * The web-mode server on its own (no browser): static files with the CSP,
 * no path traversal, and a WebSocket API that only the server's own origin
 * may open, speaking the protocol's BridgeCall/BridgeReply frames.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebServer, type RunningWebServer } from '../../src-main/web/server';
import type { ApiHost } from '../../src-main/host/api-host';

let server: RunningWebServer;
let dir: string;
const calls: { method: string; params: unknown[] }[] = [];

const host: ApiHost = {
  async call(method, params, session) {
    calls.push({ method, params });
    if (method === 'boom') throw Object.assign(new Error('bad epsilon'), { code: 'invalid-input' });
    if (method === 'crash')
      throw new TypeError("Cannot read properties of undefined (reading 'x') at /work/main/src-main/secret.ts:12");
    if (method === 'submit') session.emit('job', { kind: 'progress', jobId: 'job-7', fraction: 0.5, message: 'half' });
    return { echo: params };
  },
};

/**
 * How a WebSocket connection to `url` from `origin` ends: 'open', or 'refused' (with the HTTP status when one came).
 */
function connectOutcome(url: string, origin: string): Promise<string> {
  const ws = new WebSocket(url, { origin });
  return new Promise<string>((res) => {
    ws.on('open', () => res('open'));
    ws.on('error', () => res('refused'));
    ws.on('unexpected-response', (_req, r) => res(`refused ${r.statusCode}`));
  });
}

function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(server.url);
  return new Promise((res, rej) => {
    const req = request({ host: u.hostname, port: u.port, path, headers }, (r) => {
      let body = '';
      r.on('data', (c: Buffer) => (body += c.toString()));
      r.on('end', () => res({ status: r.statusCode ?? 0, headers: r.headers, body }));
    });
    req.on('error', rej);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mechstudio-srv-'));
  mkdirSync(join(dir, 'renderer'));
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(dir, 'secret.txt'), 'do not serve');
  server = await startWebServer({ port: 0, rendererDir: join(dir, 'renderer'), api: host, token: 's3cret' });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('web-mode server', () => {
  it('listens on 127.0.0.1 and serves the renderer with a strict CSP', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=s3cret$/);
    const r = await get('/');
    expect(r.status).toBe(200);
    expect(r.body).toContain('<title>t</title>');
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${server.port}`);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('never serves files outside the renderer folder, nor to a foreign Host', async () => {
    expect((await get('/../secret.txt')).body).not.toContain('do not serve');
    expect((await get('/%2e%2e/secret.txt')).body).not.toContain('do not serve');
    expect((await get('/missing.js')).status).toBe(404);
    expect((await get('/', { host: 'evil.example' })).status).toBe(403);
  });

  it('answers a malformed URL with 400, not a 500 with the URIError', async () => {
    for (const p of ['/%E0%A4%A', '/%', '/x%ZZ']) {
      const r = await get(p);
      expect(r.status, p).toBe(400);
      expect(r.body).not.toContain('URIError');
    }
  });

  it('a malformed frame closes only that socket; the server goes on', async () => {
    const origin = `http://127.0.0.1:${server.port}`;
    const bad = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=s3cret`, { origin });
    await new Promise((r) => bad.on('open', r));
    bad.on('error', () => undefined);
    const closed = new Promise<number>((r) => bad.on('close', (code) => r(code)));
    // a text frame that is not UTF-8: ws closes with 1007 (and used to end the process: no 'error' listener)
    (bad as unknown as { _socket: import('node:net').Socket })._socket.write(
      Buffer.from([0x81, 0x82, 0, 0, 0, 0, 0xc0, 0x80]),
    );
    expect(await closed).toBe(1007);
    const ok = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=s3cret`, { origin });
    await new Promise((r) => ok.on('open', r));
    const reply = new Promise((r) => ok.once('message', (d) => r(JSON.parse(String(d)))));
    ok.send(JSON.stringify({ id: 9, method: 'info', params: [] }));
    expect(await reply).toEqual({ id: 9, ok: true, value: { echo: [] } });
    ok.close();
  });

  it('refuses WebSocket connections from other origins', async () => {
    const base = `ws://127.0.0.1:${server.port}/api`;
    expect(await connectOutcome(`${base}?token=s3cret`, 'https://evil.example')).toMatch(/^refused/);
  });

  it('refuses WebSocket connections without the access token, even from the right origin', async () => {
    for (const q of ['', '?token=wrong', '?token=s3cre']) {
      expect(await connectOutcome(`ws://127.0.0.1:${server.port}/api${q}`, `http://127.0.0.1:${server.port}`)).toMatch(
        /^refused/,
      );
    }
  });

  it('answers calls by id, turns thrown errors into JobErrors and pushes job events', async () => {
    const origin = `http://127.0.0.1:${server.port}`;
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=s3cret`, { origin });
    await new Promise((r) => ws.on('open', r));
    const frames: unknown[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(String(d))));
    ws.send(JSON.stringify({ id: 1, method: 'submit', params: [{ type: 'mechanism' }] }));
    ws.send(JSON.stringify({ id: 2, method: 'boom', params: [] }));
    ws.send('not json');
    ws.send(JSON.stringify({ id: 3, method: 'crash', params: [] }));
    ws.send(JSON.stringify({ id: 4, method: 'info' }));
    // every call answered (ids 1 to 4 and the frame with none) and the job's event pushed
    const answered = () =>
      new Set(
        frames.map((f) => ((f as { id?: unknown }).id === undefined ? 'event' : String((f as { id: unknown }).id))),
      );
    await expect.poll(() => ['1', '2', '3', '4', 'null', 'event'].every((k) => answered().has(k))).toBe(true);
    // a frame that is not a call gets a typed reply (no id to answer by), a bad call one by its id
    expect(frames).toContainEqual({
      id: null,
      ok: false,
      error: { code: 'invalid-input', message: 'frame is not valid JSON' },
    });
    expect(frames).toContainEqual({
      id: 4,
      ok: false,
      error: { code: 'invalid-input', message: 'frame "params" must be an array' },
    });
    // an unexpected error is reported without its internals
    expect(frames).toContainEqual({
      id: 3,
      ok: false,
      error: { code: 'internal', message: 'internal error in the server (see its console)' },
    });
    expect(frames).toContainEqual({ event: { kind: 'progress', jobId: 'job-7', fraction: 0.5, message: 'half' } });
    expect(frames).toContainEqual({ id: 1, ok: true, value: { echo: [{ type: 'mechanism' }] } });
    expect(frames).toContainEqual({ id: 2, ok: false, error: { code: 'invalid-input', message: 'bad epsilon' } });
    expect(calls.map((c) => c.method).slice(-3)).toEqual(['submit', 'boom', 'crash']);
    ws.close();
  });
});
