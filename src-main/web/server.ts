import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  ApiError,
  MAX_BRIDGE_FRAME_BYTES,
  MAX_BRIDGE_MESSAGE_BYTES,
  type BridgeCall,
  type BridgeFrameError,
  type BridgePush,
  type BridgeReply,
  type JobError,
} from '../../src-shared/protocol';
import { MechError } from '../../src-shared/errors';
import { toJobError, type ApiHost, type HostSession } from '../host/api-host';
import type { Transfers } from '../host/transfers';

interface WebServerOptions {
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
  /** Downloads and uploads of the page (GET /download/TOKEN, POST /upload/TOKEN): the host's, absent = none served. */
  transfers?: Transfers;
}

export interface RunningWebServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Largest WebSocket message (bytes; MAX_BRIDGE_MESSAGE_BYTES). A bigger one
 * gets a typed 'too-large' reply before it is parsed, and the socket stays
 * open (the page's jobs run on); only a frame over MAX_BRIDGE_FRAME_BYTES
 * closes the socket with 1009 before it is buffered. 16 MiB holds every request the app sends:
 * inline channels (results carry at most INLINE_MATRIX_LIMIT = 40,000
 * entries, ~1 MB), a custom metric of the size the engine admits (~1,600
 * points, 2.5M distances at ~6 bytes), a prior vector of ~1M points at full
 * precision. The worst message under the cap (8M one-digit entries) costs
 * ~0.25 s to JSON.parse and ~0.2 s per schema validation at ~0.4 GB, where
 * the old 256 MiB cap let a 100 MB prior block the server for 18 s at 4.7 GB.
 */
export const MAX_MESSAGE_BYTES = MAX_BRIDGE_MESSAGE_BYTES;
/**
 * Array entries (',') and arrays ('[') one message may hold, counted on the
 * raw bytes before JSON.parse (strings included, so the count errs high).
 * Parsing and validating cost time per value, most per small array (edges):
 * under these caps the worst message blocks the event loop well under a
 * second, where a 16 MiB frame of 2.8M edges took ~2 s. 4.5M covers the
 * largest inline request the protocol allows (a 2000-point custom metric:
 * 4M distances, or a 4M-entry channel), with its labels.
 */
export const MAX_MESSAGE_VALUES = 4_500_000;
export const MAX_MESSAGE_ARRAYS = 500_000;
/** Replies queued for a client that does not read them; beyond this the socket is closed. */
const MAX_BUFFERED_BYTES = 64 * 2 ** 20;

type BadFrameReply = BridgeFrameError;

/** The call id a message starts with ({"id":N,...}), read without parsing it; null when it does not. */
function leadingId(buf: Buffer): number | null {
  const m = /^\s*\{\s*"id"\s*:\s*(\d{1,15})\s*,/.exec(buf.subarray(0, 64).toString('latin1'));
  return m ? Number(m[1]) : null;
}

function parseCall(
  data: unknown,
  isBinary: boolean,
): { call: BridgeCall } | { id: number | null; error: string; code?: 'too-large' } {
  if (isBinary) return { id: null, error: 'binary frames are not accepted: send one JSON call per text frame' };
  const buf = Buffer.isBuffer(data)
    ? data
    : Array.isArray(data)
      ? Buffer.concat(data as Buffer[])
      : Buffer.from(data as ArrayBuffer);
  if (buf.length > MAX_MESSAGE_BYTES) {
    return {
      id: leadingId(buf),
      code: 'too-large',
      error: `message is ${(buf.length / 2 ** 20).toFixed(1)} MiB, over the ${MAX_MESSAGE_BYTES / 2 ** 20} MiB one call may carry: give large inputs as files (csv:FILE, graph:FILE), or use the mechstudio command line`,
    };
  }
  let commas = 0;
  let brackets = 0;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === 0x2c) commas++;
    else if (b === 0x5b) brackets++;
  }
  if (commas > MAX_MESSAGE_VALUES || brackets > MAX_MESSAGE_ARRAYS) {
    return {
      id: leadingId(buf),
      code: 'too-large',
      error: `message holds ${commas > MAX_MESSAGE_VALUES ? `over ${MAX_MESSAGE_VALUES} array entries` : `over ${MAX_MESSAGE_ARRAYS} arrays`}, more than one request may carry: give large inputs as files (csv:FILE, graph:FILE)`,
    };
  }
  let msg: unknown;
  try {
    msg = JSON.parse(buf.toString('utf8'));
  } catch {
    return { id: null, error: 'frame is not valid JSON' };
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg))
    return { id: null, error: 'frame must be a JSON object {id, method, params}' };
  const o = msg as { id?: unknown; method?: unknown; params?: unknown };
  const id = typeof o.id === 'number' && Number.isSafeInteger(o.id) ? o.id : null;
  if (id === null) return { id: null, error: 'frame has no integer "id"' };
  if (typeof o.method !== 'string' || o.method.length > 100) return { id, error: 'frame has no "method" string' };
  if (!Array.isArray(o.params)) return { id, error: 'frame "params" must be an array' };
  return { call: { id, method: o.method as BridgeCall['method'], params: o.params } };
}

/** A handler's error as sent to the client: typed errors keep their message; anything else is generic. */
function publicError(e: unknown): JobError {
  const err = toJobError(e);
  if (err.code === 'internal' && !(e instanceof ApiError) && !(e instanceof MechError)) {
    return { code: 'internal', message: 'internal error in the server (see its console)' };
  }
  return err;
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
function contentSecurityPolicy(wsOrigin: string): string {
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

/** Where the server is reachable: known once it listens; every request and upgrade is checked against it. */
interface Site {
  root: string;
  origin: string;
  hostHeader: string;
}

function plain(res: ServerResponse, status: number, text?: string): void {
  res.writeHead(status, text === undefined ? {} : { 'content-type': 'text/plain' });
  res.end(text);
}

/** The built renderer's files, GET/HEAD only, inside `root` only, for this server's Host only. */
async function serveStatic(site: Site, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.headers.host !== site.hostHeader) return plain(res, 403, 'forbidden host');
  if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405);
  let rel: string;
  try {
    rel = decodeURIComponent(new URL(req.url ?? '/', site.origin).pathname);
  } catch {
    return plain(res, 400, 'bad request: malformed URL');
  }
  if (rel.includes('\0')) return plain(res, 400, 'bad request: malformed URL');
  if (rel === '/' || rel === '') rel = '/index.html';
  const file = normalize(join(site.root, rel));
  if (file !== site.root && !file.startsWith(site.root + sep)) return plain(res, 403);
  let body: Buffer;
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new Error('not a file');
    body = await readFile(file);
  } catch {
    return plain(res, 404, 'not found');
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-security-policy': contentSecurityPolicy(site.origin.replace(/^http/, 'ws')),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * The transfer routes: a one-time download (GET /download/TOKEN, the file
 * deleted once sent) and an upload into a slot (POST /upload/TOKEN from this
 * server's own page, Origin checked). The token is the only key: it was
 * handed to the page over its authenticated WebSocket.
 */
async function serveTransfer(
  site: Site,
  transfers: Transfers,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  if (req.headers.host !== site.hostHeader) return plain(res, 403, 'forbidden host');
  const [, route, token = ''] = path.split('/');
  if (route === 'download') {
    if (req.method !== 'GET') return plain(res, 405);
    const got = transfers.take(token);
    if (!got) return plain(res, 404, 'this download link has expired or was used: export again');
    const size = (await stat(got.file)).size;
    res.writeHead(200, {
      'content-type': got.mime,
      'content-length': String(size),
      'content-disposition': `attachment; filename="${got.name.replace(/[^\x20-\x7e]|"/g, '_')}"; filename*=UTF-8''${encodeURIComponent(got.name)}`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    await pipeline(createReadStream(got.file), res).finally(() => rm(got.file, { force: true }));
    return;
  }
  if (req.method !== 'POST') return plain(res, 405);
  if (req.headers.origin !== site.origin) return plain(res, 403, 'forbidden origin');
  const length = Number(req.headers['content-length']);
  const answer = await transfers.receive(token, req, Number.isFinite(length) ? length : null);
  // a refused body is not read: the connection closes after the answer
  if (answer.status !== 204) res.setHeader('connection', 'close');
  plain(res, answer.status, answer.message || undefined);
}

/** The HTTP server: transfers and static files; a broken request or a reset socket is that client's problem only. */
function createHttpServer(site: Site, transfers: Transfers | undefined): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const route =
      transfers && /^\/(download|upload)\//.test(path)
        ? serveTransfer(site, transfers, req, res, path)
        : serveStatic(site, req, res);
    void route.catch(() => {
      // Never internals (paths, stack, messages) to the client.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal server error');
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  server.on('error', () => {
    /* listen errors are reported by listen(); later ones must not end the process */
  });
  return server;
}

/** Constant-time check of the ?token= the WebSocket presents (no token configured: any). */
function tokenChecker(token: string | undefined): (given: string | null) => boolean {
  return (given) => {
    if (token === undefined) return true;
    if (given === null) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };
}

/** WebSocket upgrades at /api, from this server's own page (Origin, Host) with the token; anything else 403. */
function acceptUpgrades(
  server: Server,
  wss: WebSocketServer,
  site: Site,
  tokenOk: (given: string | null) => boolean,
): void {
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    let u: URL;
    try {
      u = new URL(req.url ?? '/', 'http://x');
    } catch {
      socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
      return;
    }
    if (
      u.pathname !== '/api' ||
      req.headers.origin !== site.origin ||
      req.headers.host !== site.hostHeader ||
      !tokenOk(u.searchParams.get('token'))
    ) {
      socket.write('HTTP/1.1 403 Forbidden\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
}

/** One client: its frames become API calls of one session, answered by id; its job events are pushed. */
function serveConnection(ws: WebSocket, api: ApiHost, sessionId: string, onClose: () => void): void {
  // Malformed frames (invalid UTF-8, bad opcode, RSV bits, unmasked, over
  // maxPayload): ws emits 'error' here and closes this socket with
  // 1002/1007/1009. Without a listener the error would end the process.
  ws.on('error', () => {
    if (ws.readyState !== ws.CLOSED && ws.readyState !== ws.CLOSING) ws.terminate();
  });
  const send = (m: BridgeReply | BridgePush | BadFrameReply): void => {
    if (ws.readyState !== ws.OPEN) return;
    // A client that never reads its replies must not grow this process without bound.
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.close(1008, 'replies not read');
      return;
    }
    ws.send(JSON.stringify(m));
  };
  const session: HostSession = { id: sessionId, emit: (_channel, event) => send({ event }) };
  ws.on('message', (data, isBinary) => {
    const frame = parseCall(data, isBinary);
    if ('error' in frame) {
      send({ id: frame.id, ok: false, error: { code: frame.code ?? 'invalid-input', message: frame.error } });
      return;
    }
    const msg = frame.call;
    let pending: Promise<unknown>;
    try {
      pending = api.call(msg.method, msg.params, session);
    } catch (e) {
      pending = Promise.reject(e);
    }
    pending
      .then((value) => send({ id: msg.id, ok: true, value: value === undefined ? null : value }))
      .catch((e: unknown) => send({ id: msg.id, ok: false, error: publicError(e) }));
  });
  ws.on('close', () => {
    onClose();
    api.closeSession?.(session);
  });
}

/**
 * The WebSocket side: no compression (a small compressed frame could inflate to the cap), frames up to
 * MAX_BRIDGE_FRAME_BYTES.
 */
function createSocketServer(api: ApiHost, sessions: Set<WebSocket>): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BRIDGE_FRAME_BYTES, perMessageDeflate: false });
  wss.on('error', () => {
    /* errors of single connections are handled per socket */
  });
  wss.on('wsClientError', (_err, socket) => {
    // a malformed upgrade request: ws answers 400 itself; make sure the socket ends
    socket.destroy();
  });
  let counter = 0;
  wss.on('connection', (ws: WebSocket) => {
    sessions.add(ws);
    serveConnection(ws, api, `web-${++counter}`, () => sessions.delete(ws));
  });
  return wss;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((res, rej) => {
    server.once('error', rej);
    server.listen(port, host, () => res((server.address() as AddressInfo).port));
  });
}

/**
 * Web mode: serve the built renderer on 127.0.0.1 and carry the API over a
 * WebSocket at /api. Only same-origin pages may open the socket (Origin and
 * Host are checked, which also defeats DNS rebinding), because the API can
 * read and write files on this machine.
 */
export async function startWebServer(opts: WebServerOptions): Promise<RunningWebServer> {
  const host = opts.host ?? '127.0.0.1';
  const site: Site = { root: resolve(opts.rendererDir), origin: '', hostHeader: '' };
  const sessions = new Set<WebSocket>();
  const server = createHttpServer(site, opts.transfers);
  const wss = createSocketServer(opts.api, sessions);
  acceptUpgrades(server, wss, site, tokenChecker(opts.token));
  const port = await listen(server, opts.port ?? 0, host);
  site.hostHeader = `${host}:${port}`;
  site.origin = `http://${site.hostHeader}`;
  return {
    url: opts.token === undefined ? `${site.origin}/` : `${site.origin}/?token=${encodeURIComponent(opts.token)}`,
    port,
    close: async () => {
      for (const ws of sessions) ws.terminate();
      wss.close();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}
