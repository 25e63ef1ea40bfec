// Is the esbuild output of scripts/build-cli.mjs usable? Yes when
// out/cli/build-info.json exists, every bundle named is there, and no source
// file that went into the bundles was modified after the build started (or
// disappeared). Costs one stat per source file (a few milliseconds).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** @param {string} root project root; @param {string[]} outputs bundles the caller will load (relative to root) */
export function builtIsFresh(root, outputs) {
  let info;
  try {
    info = JSON.parse(readFileSync(join(root, 'out/cli/build-info.json'), 'utf8'));
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
