/**
 * Sandboxed preload (bundled to CommonJS; it may only require 'electron').
 * Exposes the shared MechStudioApi as window.mechstudio and a few shell hooks
 * as window.mechstudioShell. Nothing else of Node or Electron reaches the page.
 * Every call is validated again in the main process (never trust the page).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { apiOverCall, type BridgeCall, type MechStudioApi, type JobEvent } from '../../src-shared/protocol/index';
import { IPC } from './ipc-channels';

type Envelope =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: string; message: string; detail?: Record<string, unknown> } };

async function call<T>(method: BridgeCall['method'], ...params: unknown[]): Promise<T> {
  const r = (await ipcRenderer.invoke(
    IPC.call,
    method,
    params.map((p) => (p === undefined ? null : p)),
  )) as Envelope;
  if (r.ok) return r.value as T;
  // A plain object survives the context bridge with its code (an Error would keep only its message).
  throw { name: 'ApiError', code: r.error.code, message: r.error.message, detail: r.error.detail };
}

const api: MechStudioApi = apiOverCall(call, (listener) => {
  const h = (_e: IpcRendererEvent, ev: JobEvent): void => listener(ev);
  ipcRenderer.on(IPC.job, h);
  return () => void ipcRenderer.removeListener(IPC.job, h);
});

contextBridge.exposeInMainWorld('mechstudio', api);
contextBridge.exposeInMainWorld('mechstudioShell', {
  onMenu: (listener: (command: string) => void) => {
    const h = (_e: IpcRendererEvent, cmd: string): void => listener(String(cmd));
    ipcRenderer.on(IPC.menu, h);
    return () => void ipcRenderer.removeListener(IPC.menu, h);
  },
  setDirty: (dirty: boolean, title: string) => ipcRenderer.send(IPC.dirty, Boolean(dirty), String(title).slice(0, 300)),
});
