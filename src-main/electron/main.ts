/**
 * Electron main process: one secure window (contextIsolation, sandbox, no
 * nodeIntegration, strict CSP, no navigation, no new windows, no remote
 * content, all permissions denied), native menus and file dialogs, and the
 * IPC handler that validates every message and forwards jobs to the shared
 * piscina dispatcher through the same MechStudioHost web mode uses.
 */
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  session,
  type IpcMainInvokeEvent,
  type WebContents,
} from 'electron';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { existsSync, readFileSync } from 'node:fs';
import { Dispatcher } from '../dispatcher/dispatcher';
import { ChannelStore } from '../dispatcher/channel-store';
import { SwitchableRunner } from '../dispatcher/switchable-runner';
import { MechStudioHost, jobService } from '../host/host';
import type { Dialogs } from '../host/api-host';
import { QueueSettings } from '../host/queue-settings';
import { appJobs } from '../dispatcher/fan-out';
import { createProjectStore } from '../host/project-store';
import { toJobError, type HostSession } from '../host/api-host';
import { buildMenu } from './menu';
import { IPC } from './ipc-channels';
import type { MenuCommand } from '../../src-shared/protocol/index';
import { messageOf } from '../../src-shared/errors';

const here = dirname(fileURLToPath(import.meta.url)); // out/main
const root = resolve(here, '../..');
const rendererIndex = join(root, 'out/renderer/index.html');
const preloadFile = join(root, 'out/preload/index.cjs');
const workerFile = join(here, 'worker.js');

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
].join('; ');

let win: BrowserWindow | null = null;
let dirty = false;
let forceClose = false;

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return app.getVersion();
  }
}

const dialogs: Dialogs = {
  async openProject() {
    const r = await dialog.showOpenDialog(win ?? undefined!, {
      title: 'Open project',
      properties: ['openFile'],
      filters: [{ name: 'Mechanism Studio project', extensions: ['json'] }],
    });
    return r.canceled || !r.filePaths[0] ? null : r.filePaths[0];
  },
  async saveProject(suggested) {
    const r = await dialog.showSaveDialog(win ?? undefined!, {
      title: 'Save project',
      defaultPath: suggested,
      filters: [{ name: 'Mechanism Studio project', extensions: ['json'] }],
    });
    return r.canceled || !r.filePath ? null : r.filePath;
  },
  async saveFile(suggested, filters) {
    const r = await dialog.showSaveDialog(win ?? undefined!, { defaultPath: suggested, filters });
    return r.canceled || !r.filePath ? null : r.filePath;
  },
  async chooseDir() {
    const r = await dialog.showOpenDialog(win ?? undefined!, {
      title: 'Export into folder',
      properties: ['openDirectory', 'createDirectory'],
    });
    return r.canceled || !r.filePaths[0] ? null : r.filePaths[0];
  },
};

function isOurPage(url: string): boolean {
  return url === pathToFileURL(rendererIndex).href || url.startsWith(pathToFileURL(rendererIndex).href + '#');
}

/** Lock down every web contents: no navigation, no popups, no webviews. */
function harden(contents: WebContents): void {
  contents.on('will-navigate', (e, url) => {
    if (!isOurPage(url)) e.preventDefault();
  });
  contents.on('will-redirect', (e) => e.preventDefault());
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

async function main(): Promise<void> {
  await app.whenReady();
  app.on('web-contents-created', (_e, contents) => harden(contents));
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  ses.setPermissionCheckHandler(() => false);
  // No remote content: only file:// (our bundle), data: and blob: may load.
  ses.webRequest.onBeforeRequest((details, cb) => {
    const u = details.url;
    cb({
      cancel: !(
        u.startsWith('file://') ||
        u.startsWith('data:') ||
        u.startsWith('blob:') ||
        u.startsWith('devtools://')
      ),
    });
  });
  ses.webRequest.onHeadersReceived((details, cb) => {
    cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } });
  });

  // Where jobs run: the local pool, or a Redis queue (docs/scaling-out.md) chosen in the app's settings (kept in
  // userData/settings.json) or by MECHSTUDIO_QUEUE=redis://HOST:PORT[/DB]; an unreachable queue falls back to the pool.
  const configDir = app.getPath('userData');
  // kept channels (optimal LPs) survive a restart: the app's cache, and each saved project's channel folder
  const channels = new ChannelStore({ cacheDir: join(configDir, 'channels') });
  const local = new Dispatcher({ channels, ...(existsSync(workerFile) ? { workerFile } : {}) });
  const dispatcher = new SwitchableRunner(local);
  const queueSettings = new QueueSettings({ runner: dispatcher, configDir });
  try {
    await queueSettings.start(process.env.MECHSTUDIO_QUEUE || undefined);
  } catch (e) {
    dialog.showErrorBox('Job queue unavailable', `${messageOf(e)}\n\nJobs run on this computer instead.`);
  }
  let menuModel = {
    recent: [] as Awaited<ReturnType<MechStudioHost['recent']>>,
    examples: [] as { name: string; title: string; description: string }[],
  };
  const send = (cmd: MenuCommand): void => win?.webContents.send(IPC.menu, cmd);
  const showAbout = (): void =>
    void dialog.showMessageBox(win ?? undefined!, {
      type: 'info',
      title: 'About Mechanism Studio',
      message: `Mechanism Studio ${version()}`,
      detail: `Design and audit privacy mechanisms under metric differential privacy.\n${dispatcher.threads} worker threads · Electron ${process.versions.electron}`,
    });
  const rebuildMenu = (): void => {
    Menu.setApplicationMenu(buildMenu(() => win, menuModel, send, showAbout));
  };
  const host = new MechStudioHost({
    mode: 'electron',
    version: version(),
    jobs: jobService(appJobs(dispatcher)),
    store: createProjectStore(dispatcher, { examplesDir: join(root, 'resources/examples'), configDir }),
    dialogs,
    queue: queueSettings,
    channels,
    onRecentChanged: (recent) => {
      menuModel = { ...menuModel, recent };
      rebuildMenu();
    },
  });
  menuModel = {
    recent: await host.recent(),
    examples: (await host.call('examples.list', [], nullSession)) as typeof menuModel.examples,
  };
  rebuildMenu();

  const sessions = new Map<number, HostSession>();
  const sessionFor = (contents: WebContents): HostSession => {
    let s = sessions.get(contents.id);
    if (!s) {
      s = { id: `electron-${contents.id}`, emit: (_c, ev) => !contents.isDestroyed() && contents.send(IPC.job, ev) };
      sessions.set(contents.id, s);
      contents.once('destroyed', () => {
        host.closeSession(s!);
        sessions.delete(contents.id);
      });
    }
    return s;
  };

  ipcMain.handle(IPC.call, async (event: IpcMainInvokeEvent, method: unknown, params: unknown) => {
    // Only our own page may call the API.
    if (!event.senderFrame || !isOurPage(event.senderFrame.url))
      return { ok: false, error: { code: 'invalid-input', message: 'caller is not the app' } };
    if (typeof method !== 'string' || !Array.isArray(params))
      return { ok: false, error: { code: 'invalid-input', message: 'malformed API call' } };
    try {
      return { ok: true, value: (await host.call(method, params, sessionFor(event.sender))) ?? null };
    } catch (e) {
      return { ok: false, error: toJobError(e) };
    }
  });
  ipcMain.on(IPC.dirty, (event, d: unknown, title: unknown) => {
    if (!event.senderFrame || !isOurPage(event.senderFrame.url)) return;
    dirty = d === true;
    if (typeof title === 'string') win?.setTitle(title);
    win?.setDocumentEdited(dirty);
  });

  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('will-quit', () => {
    host.dispose();
    void dispatcher.close();
  });
}

const nullSession: HostSession = { id: 'main', emit: () => undefined };

function createWindow(): void {
  win = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 1000,
    minHeight: 640,
    title: 'Mechanism Studio',
    backgroundColor: '#f5f6f8',
    show: false,
    icon: join(root, 'resources/icons/icon.png'),
    webPreferences: {
      preload: preloadFile,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win?.show());
  // Unsaved changes: ask before closing (the renderer reports dirtiness).
  win.on('close', (e) => {
    if (!dirty || forceClose || !win) return;
    const choice = dialog.showMessageBoxSync(win, {
      type: 'warning',
      buttons: ['Discard changes', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      title: 'Unsaved changes',
      message: 'The project has unsaved changes.',
      detail: 'Close anyway? An autosaved copy is offered again on the next start.',
    });
    if (choice === 0) forceClose = true;
    else e.preventDefault();
  });
  // The renderer's beforeunload guard must not block a close the user confirmed.
  win.webContents.on('will-prevent-unload', (e) => {
    if (forceClose) e.preventDefault();
  });
  win.on('closed', () => {
    win = null;
  });
  void win.loadFile(rendererIndex);
}

main().catch((e: unknown) => {
  dialog.showErrorBox('Mechanism Studio failed to start', e instanceof Error ? (e.stack ?? e.message) : String(e));
  app.exit(1);
});
