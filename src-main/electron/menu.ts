/**
 * Native application menu: File (New, Open, Open Recent, Save, Save As,
 * Export CSV, Export PNG, Quit), Examples, View, Help. Menu items only send a
 * MenuCommand (src-shared/protocol/api-calls.ts) to the renderer, which owns
 * the document state and parses it before acting.
 */
import { Menu, shell, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import { type ExampleInfo, type RecentProject, type MenuCommand } from '../../src-shared/protocol/index';

interface MenuModel {
  recent: RecentProject[];
  examples: ExampleInfo[];
}

export function buildMenu(
  win: () => BrowserWindow | null,
  model: MenuModel,
  send: (cmd: MenuCommand) => void,
  showAbout: () => void,
): Menu {
  const isMac = process.platform === 'darwin';
  const recentItems: MenuItemConstructorOptions[] = model.recent.length
    ? model.recent.map((r) => ({ label: `${r.name} — ${r.path}`, click: () => send(`open-recent:${r.path}`) }))
    : [{ label: 'No recent projects', enabled: false }];
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: '&File',
      submenu: [
        { label: 'New Project', accelerator: 'CmdOrCtrl+N', click: () => send('new') },
        { label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => send('open') },
        { label: 'Open Recent', submenu: recentItems },
        { type: 'separator' },
        { label: 'Save', accelerator: 'CmdOrCtrl+S', click: () => send('save') },
        { label: 'Save As…', accelerator: 'CmdOrCtrl+Shift+S', click: () => send('save-as') },
        { type: 'separator' },
        { label: 'Export CSV…', accelerator: 'CmdOrCtrl+E', click: () => send('export-csv') },
        { label: 'Export PNG…', accelerator: 'CmdOrCtrl+Shift+E', click: () => send('export-png') },
        { label: 'Study Report…', click: () => send('report') },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'E&xamples',
      submenu: model.examples.length
        ? model.examples.map((e) => ({
            label: e.title,
            toolTip: e.description,
            click: () => send(`example:${e.name}`),
          }))
        : [{ label: 'No examples found', enabled: false }],
    },
    {
      label: '&View',
      submenu: [
        { label: 'Compute Everything', accelerator: 'F5', click: () => send('compute-all') },
        { label: 'Settings…', accelerator: 'CmdOrCtrl+,', click: () => send('settings') },
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
      ],
    },
    {
      label: '&Help',
      submenu: [
        { label: 'Glossary', click: () => send('glossary') },
        { label: 'About Mechanism Studio', click: showAbout },
        {
          label: 'Project on the web (opens your browser)',
          click: () => void shell.openExternal('https://github.com/'),
        },
        { type: 'separator' },
        {
          label: 'Toggle Developer Tools',
          accelerator: 'CmdOrCtrl+Shift+I',
          click: () => win()?.webContents.toggleDevTools(),
        },
      ],
    },
  ];
  return Menu.buildFromTemplate(template);
}
