#!/usr/bin/env node
// Launcher. Runs the built CLI (out/cli/main.js, plain JavaScript bundled by
// scripts/build-cli.mjs, whose worker pool runs out/worker/worker-entry.js)
// when it exists and no source went into it changed since it was built;
// otherwise registers tsx and runs the TypeScript sources
// (src-main/cli/main.ts; worker threads then load tsx themselves). Both paths
// run the same code, so they behave the same; the built one starts faster.
// MECHSTUDIO_CLI=tsx forces the sources, MECHSTUDIO_CLI=built the bundle.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtIsFresh } from '../scripts/built-fresh.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const want = process.env.MECHSTUDIO_CLI;
if (want === 'built' || (want !== 'tsx' && builtIsFresh(root, ['out/cli/main.js', 'out/worker/worker-entry.js']))) {
  await import('../out/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src-main/cli/main.ts');
}
