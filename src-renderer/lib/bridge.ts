/**
 * The renderer's MechStudioApi: the Electron preload's `window.mechstudio`
 * when present, else a WebSocket bridge to the web-mode server (same origin,
 * path /api) speaking the BridgeCall / BridgeReply / BridgePush frames of
 * src-shared/protocol/api.ts.
 */
import {
  ApiError,
  apiOverCall,
  bridgeMessageTooLarge,
  type BridgeCall,
  type MechStudioApi,
  bridgeInboundSchema,
  type JobEvent,
} from '../../src-shared/protocol/index';

declare global {
  interface Window {
    mechstudio?: MechStudioApi;
    /** Electron-only shell hooks (menus, close prompt); absent in web mode. */
    mechstudioShell?: ShellApi;
  }
}

interface ShellApi {
  /**
   * Native menu commands, as sent: the page parses each with menuCommandSchema (src-shared/protocol/api-calls.ts)
   * before acting.
   */
  onMenu(listener: (command: unknown) => void): () => void;
  /** Tell the main process whether there are unsaved changes (close prompt, title). */
  setDirty(dirty: boolean, title: string): void;
}

type Pending = { resolve: (v: unknown) => void; reject: (e: unknown) => void };

export function createWebSocketApi(url: string): MechStudioApi {
  const listeners = new Set<(e: JobEvent) => void>();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let socket: WebSocket | null = null;
  let opening: Promise<WebSocket> | null = null;

  function connect(): Promise<WebSocket> {
    if (socket && socket.readyState === WebSocket.OPEN) return Promise.resolve(socket);
    if (opening) return opening;
    opening = new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => {
        socket = ws;
        opening = null;
        resolve(ws);
      };
      ws.onerror = () => {
        opening = null;
        reject(new ApiError({ code: 'internal', message: `cannot reach the Mechanism Studio server at ${url}` }));
      };
      ws.onclose = () => {
        socket = null;
        for (const p of pending.values())
          p.reject(new ApiError({ code: 'internal', message: 'connection to the server was lost' }));
        pending.clear();
      };
      ws.onmessage = (m) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(m.data));
        } catch {
          return;
        }
        const checked = bridgeInboundSchema.safeParse(parsed);
        if (!checked.success) return;
        const msg = checked.data;
        if ('event' in msg) {
          for (const l of listeners) l(msg.event as JobEvent);
          return;
        }
        if (msg.id === null) return; // a frame the server could not read as a call: not one of ours
        const p = pending.get(msg.id);
        if (!p) return;
        pending.delete(msg.id);
        if (msg.ok) p.resolve(msg.value);
        else p.reject(new ApiError(msg.error));
      };
    });
    return opening;
  }

  async function call<T>(method: BridgeCall['method'], ...params: unknown[]): Promise<T> {
    const ws = await connect();
    const id = nextId++;
    const frame: BridgeCall = { id, method, params: params.map((p) => (p === undefined ? null : p)) };
    const text = JSON.stringify(frame);
    // a message over the server's cap is refused here, typed, and never sent: the connection and its jobs stay
    const tooLarge = bridgeMessageTooLarge(text);
    if (tooLarge) throw new ApiError(tooLarge);
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      ws.send(text);
    });
  }

  return apiOverCall(call, (listener) => {
    listeners.add(listener);
    void connect().catch(() => {});
    return () => listeners.delete(listener);
  });
}

let api: MechStudioApi | null = null;
export function getApi(): MechStudioApi {
  if (api) return api;
  if (typeof window !== 'undefined' && window.mechstudio) {
    api = window.mechstudio;
  } else {
    const loc = window.location;
    // The server's access token comes in the printed URL; keep it for reloads of this tab.
    let token = new URLSearchParams(loc.search).get('token');
    try {
      if (token) sessionStorage.setItem('mechstudio.token', token);
      else token = sessionStorage.getItem('mechstudio.token');
    } catch {
      /* storage unavailable: the URL must carry the token */
    }
    const q = token ? `?token=${encodeURIComponent(token)}` : '';
    api = createWebSocketApi(`${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/api${q}`);
  }
  return api;
}

export function getShell(): ShellApi | null {
  return typeof window !== 'undefined' && window.mechstudioShell ? window.mechstudioShell : null;
}
