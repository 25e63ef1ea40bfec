#!/usr/bin/env node
// `postinstall`: downloads the Electron binary, tolerating failure.
//
// npm does not run the electron package's own postinstall (package.json
// "allowScripts": {"electron": false}): where GitHub cannot be reached that
// script fails, and with it the whole `npm install`, although web mode exists
// for exactly that case. This runs the same script (node_modules/electron/
// install.js) and, if it fails, says so in one line and exits 0:
// `npm start` then serves the app in web mode (scripts/start.mjs).
//
// ELECTRON_SKIP_BINARY_DOWNLOAD=1 skips the download (CI, offline machines).
// Retry later with `node node_modules/electron/install.js`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const installJs = join(root, 'node_modules/electron/install.js');

// Electron is a devDependency: absent from --omit=dev installs; nothing to do.
if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD || !existsSync(installJs)) process.exit(0);

const r = spawnSync(process.execPath, [installJs], {
  cwd: dirname(installJs),
  stdio: ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8',
  // A download that hangs (a silent proxy) must not hang the install.
  timeout: 20 * 60_000,
  killSignal: 'SIGKILL',
});
if (r.status === 0) process.exit(0);

const output = `${r.stderr ?? ''}\n${r.stdout ?? ''}`;
const reason =
  r.error?.code === 'ETIMEDOUT'
    ? 'the download took more than 20 minutes'
    : (
        output
          .split('\n')
          .map((l) => l.trim())
          .find((l) => /error/i.test(l)) ??
        output.trim().split('\n')[0] ??
        `exit ${r.status}`
      ).slice(0, 200);
console.log(
  `Electron's binary could not be downloaded (${reason}); the install goes on: \`npm start\` will serve Mechanism Studio in web mode. Retry the download with \`node node_modules/electron/install.js\`.`,
);
process.exit(0);
