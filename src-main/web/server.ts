import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BridgeCall, BridgePush, BridgeReply } from '../../src-worker/protocol';
import { toJobError, type ApiHost, type HostSession } from './api-host';

export type { ApiHost, HostSession } from './api-host';

export interface WebServerOptions {
  host?: string;
  port?: number;
  /** Built renderer folder (index.html + assets). */
  rendererDir: string;
  api: ApiHost;
  /**
   * Secret the WebSocket must present (?token=...). The Origin check stops
   * other web pages; the token also stops other local users and programs,
   * which can send any Origin header. The printed URL carries it.
   */
  token?: string;
}

export interface RunningWebServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.csv': 'text/csv; charset=utf-8',
};

/** Same policy as the Electron window, plus the WebSocket back to this server. */
export function contentSecurityPolicy(wsOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${wsOrigin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}

/**
 * Web mode: serve the built renderer on 127.0.0.1 and carry the API over a
 * WebSocket at /api. Only same-origin pages may open the socket (Origin and
 * Host are checked, which also defeats DNS rebinding), because the API can
 * read and write files on this machine.
 */
export async function startWebServer(opts: WebServerOptions): Promise<RunningWebServer> {
  const host = opts.host ?? '127.0.0.1';
  const root = resolve(opts.rendererDir);
  let origin = '';
  let hostHeader = '';
  const sessions = new Set<WebSocket>();
  let sessionCounter = 0;

  const server = createServer((req, res) => {
    void serveStatic(req, res).catch((e: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(e));
    });
  });

  async function serveStatic(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.host !== hostHeader) {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('forbidden host');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405);
      res.end();
      return;
    }
    const url = new URL(req.url ?? '/', origin);
    let rel = decodeURIComponent(url.pathname);
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = normalize(join(root, rel));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403);
      res.end();
      return;
    }
    let body: Buffer;
    try {
      const st = await stat(file);
      if (!st.isFile()) throw new Error('not a file');
      body = await readFile(file);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`not found: ${rel}`);
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-security-policy': contentSecurityPolicy(origin.replace(/^http/, 'ws')),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 256 * 1024 * 1024,
  });

  const tokenOk = (given: string | null): boolean => {
    if (opts.token === undefined) return true;
    if (given === null) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(opts.token);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  server.on('upgrade', (req, socket, head) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const okPath = u.pathname === '/api';
    if (!okPath || req.headers.origin !== origin || req.headers.host !== hostHeader || !tokenOk(u.searchParams.get('token'))) {
      socket.write('HTTP/1.1 403 Forbidden\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
    sessions.add(ws);
    const send = (m: BridgeReply | BridgePush): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    };
    const session: HostSession = {
      id: `web-${++sessionCounter}`,
      emit: (_channel, event) => send({ event }),
    };
    ws.on('message', (data) => {
      let msg: BridgeCall;
      try {
        msg = JSON.parse(String(data)) as BridgeCall;
        if (typeof msg.id !== 'number' || typeof msg.method !== 'string' || !Array.isArray(msg.params)) throw new Error('bad frame');
      } catch {
        return; // not a call: ignore
      }
      opts.api
        .call(msg.method, msg.params, session)
        .then((value) => send({ id: msg.id, ok: true, value: value === undefined ? null : value }))
        .catch((e: unknown) => send({ id: msg.id, ok: false, error: toJobError(e) }));
    });
    ws.on('close', () => {
      sessions.delete(ws);
      opts.api.closeSession?.(session);
    });
  });

  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port ?? 0, host, () => res());
  });
  const port = (server.address() as AddressInfo).port;
  hostHeader = `${host}:${port}`;
  origin = `http://${hostHeader}`;
  return {
    url: opts.token === undefined ? `${origin}/` : `${origin}/?token=${encodeURIComponent(opts.token)}`,
    port,
    close: async () => {
      for (const ws of sessions) ws.terminate();
      wss.close();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}
