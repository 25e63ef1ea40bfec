// A stand-in for the 'electron' module so the BUILT main process
// (out/main/index.js) can run under plain Node in tests: it records windows,
// menus and IPC handlers on globalThis.__electron for the driver to use.
const state = {
  handlers: new Map(),
  listeners: new Map(),
  windows: [],
  menu: null,
  sent: [],
  webContentsHandlers: [],
  permissionHandler: null,
  beforeRequest: null,
};
globalThis.__electron = state;

class WebContents {
  constructor() {
    this.id = 1;
    this.events = new Map();
    this.windowOpenHandler = null;
  }
  on(ev, fn) {
    this.events.set(ev, fn);
    return this;
  }
  once(ev, fn) {
    this.events.set(ev, fn);
    return this;
  }
  send(channel, payload) {
    state.sent.push({ channel, payload });
  }
  isDestroyed() {
    return false;
  }
  setWindowOpenHandler(fn) {
    this.windowOpenHandler = fn;
  }
  toggleDevTools() {}
}

export class BrowserWindow {
  constructor(options) {
    this.options = options;
    this.webContents = new WebContents();
    this.events = new Map();
    this.loaded = null;
    state.windows.push(this);
    for (const h of state.webContentsHandlers) h({}, this.webContents);
  }
  static getAllWindows() {
    return state.windows;
  }
  once(ev, fn) {
    this.events.set(ev, fn);
  }
  on(ev, fn) {
    this.events.set(ev, fn);
  }
  show() {}
  setTitle(t) {
    this.title = t;
  }
  setDocumentEdited() {}
  async loadFile(f) {
    this.loaded = f;
  }
}

export const app = {
  whenReady: () => Promise.resolve(),
  on(ev, fn) {
    if (ev === 'web-contents-created') state.webContentsHandlers.push(fn);
  },
  getPath: () => process.env.MECHSTUDIO_CONFIG_DIR,
  getVersion: () => '0.0.0',
  quit() {},
  exit(code) {
    process.exit(code);
  },
};
export const ipcMain = {
  handle(channel, fn) {
    state.handlers.set(channel, fn);
  },
  on(channel, fn) {
    state.listeners.set(channel, fn);
  },
};
export const Menu = {
  buildFromTemplate: (t) => ({ template: t }),
  setApplicationMenu: (m) => {
    state.menu = m;
  },
};
export const dialog = {
  showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
  showSaveDialog: async () => ({ canceled: true }),
  showMessageBox: async () => ({ response: 0 }),
  showMessageBoxSync: () => 1,
  showErrorBox: (t, m) => {
    console.error(t, m);
  },
};
export const shell = { openExternal: async () => {} };
export const session = {
  defaultSession: {
    setPermissionRequestHandler(fn) {
      state.permissionHandler = fn;
    },
    setPermissionCheckHandler() {},
    webRequest: {
      onBeforeRequest(fn) {
        state.beforeRequest = fn;
      },
      onHeadersReceived() {},
    },
  },
};
export const contextBridge = { exposeInMainWorld() {} };
export const ipcRenderer = {};
export default { app, BrowserWindow, ipcMain, Menu, dialog, shell, session, contextBridge, ipcRenderer };
