#!/usr/bin/env node
// `npm start`: build if needed, then open the Electron app. Where the Electron
// binary was not downloaded (GitHub unreachable at install time, see
// scripts/install-electron.mjs, or ELECTRON_SKIP_BINARY_DOWNLOAD installs), say
// so in one line and serve the same app in web mode on 127.0.0.1 instead.
// `npm run web` (= `node scripts/start.mjs --web`) starts web mode directly.
// Web mode runs the built host (out/web/main.js, scripts/build-cli.mjs) when it
// is up to date with the sources, else the sources through tsx. Every "is the
// build up to date" question is answered by scripts/built-fresh.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtIsFresh, sourceFiles, writeBuildRecord } from './built-fresh.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const wantWeb = argv.includes('--web');
const passThrough = argv.filter((a) => a !== '--web');

export const WEB_FALLBACK_MESSAGE =
  'Electron binary is not installed (not downloaded at install time): starting Mechanism Studio in web mode instead.';

/** Path of the Electron executable, or null when it was not downloaded. */
export function electronBinary() {
  try {
    const p = createRequire(join(root, 'package.json'))('electron');
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

const ELECTRON_OUTPUTS = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
const ELECTRON_RECORD = 'out/main/build-info.json';
/** Everything electron-vite bundles into the main process, the preload and the page. */
const ELECTRON_SOURCES = ['src-main', 'src-worker', 'src-shared', 'src-renderer'];

/** Build the Electron app (main, preload, page) unless its record says it is fresh (scripts/built-fresh.mjs). */
function ensureElectronBuilt() {
  if (builtIsFresh(root, ELECTRON_OUTPUTS, ELECTRON_RECORD)) return;
  const builtAt = Date.now() - 1000;
  const b = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (b.status !== 0) process.exit(b.status ?? 1);
  const note =
    'Written by scripts/start.mjs after electron-vite build. The app in out/main, out/preload and out/renderer is used only while no input is newer than builtAt.';
  writeBuildRecord(root, ELECTRON_RECORD, builtAt, sourceFiles(root, ELECTRON_SOURCES), note);
}

/** How web mode's host is started: the built bundle when fresh, else the sources through tsx. */
export function webHostArgs() {
  return builtIsFresh(root, ['out/web/main.js', 'out/worker/worker-entry.js'])
    ? [join(root, 'out/web/main.js')]
    : ['--import', 'tsx', join(root, 'src-main/web/main.ts')];
}

function startWeb() {
  // Web mode builds the renderer itself when out/renderer is missing or stale.
  const child = spawn(process.execPath, [...webHostArgs(), ...passThrough], {
    cwd: root,
    stdio: 'inherit',
  });
  const stop = () => child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => process.exit(code ?? 0));
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (!isMain) {
  // Imported (tests): nothing starts.
} else if (wantWeb) {
  startWeb();
} else {
  const electron = electronBinary();
  if (!electron) {
    console.log(WEB_FALLBACK_MESSAGE);
    startWeb();
  } else {
    ensureElectronBuilt();
    const child = spawn(electron, [root, ...passThrough], { cwd: root, stdio: 'inherit' });
    child.on('exit', (code) => process.exit(code ?? 0));
  }
}
