// The one freshness check of every entry point: is a build's output usable?
// Yes when its record (a JSON file { builtAt, inputs }) exists, every output
// named is there, and no input was modified after the build started (or
// disappeared). Costs one stat per input (a few milliseconds). Records:
//   out/cli/build-info.json       scripts/build-cli.mjs (esbuild's exact inputs):
//                                 bin/mechstudio.js and web mode's host
//   out/renderer/build-info.json  src-main/web/build-renderer.ts: the page web mode serves
//   out/main/build-info.json      scripts/start.mjs after `electron-vite build`: the Electron app
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * @param {string} root project root
 * @param {string[]} outputs files the caller will load (relative to root)
 * @param {string} [record] the build's record (relative to root)
 */
export function builtIsFresh(root, outputs, record = 'out/cli/build-info.json') {
  let info;
  try {
    info = JSON.parse(readFileSync(join(root, record), 'utf8'));
  } catch {
    return false;
  }
  if (typeof info?.builtAt !== 'number' || !Array.isArray(info.inputs) || info.inputs.length === 0) return false;
  if (!outputs.every((o) => existsSync(join(root, o)))) return false;
  for (const rel of info.inputs) {
    try {
      if (statSync(join(root, rel)).mtimeMs > info.builtAt) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Every file under the given folders (relative to root, sorted): the inputs of
 * a bundler that does not report its own (vite, electron-vite). A file added
 * later only matters once an input imports it, and that edit is seen.
 * @param {string} root @param {string[]} dirs folders relative to root
 */
export function sourceFiles(root, dirs) {
  const out = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(root, p));
    }
  };
  for (const d of dirs) walk(join(root, d));
  return out.sort();
}

/**
 * Write a build's record (atomically: a half-written record is never read). `builtAt` is taken before the build starts,
 * so an edit made while it runs makes the output stale.
 * @param {string} root @param {string} record relative to root @param {number} builtAt ms @param {string[]} inputs
 * relative to root @param {string} note
 */
export function writeBuildRecord(root, record, builtAt, inputs, note) {
  const file = join(root, record);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify({ builtAt, note, inputs: [...inputs].sort() }, null, 1) + '\n');
  renameSync(`${file}.tmp`, file);
}
