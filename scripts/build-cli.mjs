#!/usr/bin/env node
// `npm run build:cli` (also run by `prepare` on `npm install`/`npm ci`, and by
// `npm test` before the suites): bundles the command line, the worker and the
// web-mode host into plain JavaScript with esbuild, so they start without
// compiling TypeScript at run time (tsx).
//
//   out/cli/main.js          <- src-main/cli/main.ts
//   out/worker/worker-entry.js <- src-worker/worker-entry.ts
//   out/worker/pricing-worker.js <- src-worker/lp/pricing/pricing-worker.ts (LP pricing threads)
//   out/worker/check-worker.js <- src-worker/check/check-worker.ts (privacy-check threads)
//   out/worker/master-worker.js <- src-worker/lp/decomposition/master-worker.ts (the dense master's helper thread)
//   out/web/main.js          <- src-main/web/main.ts
//   out/cli/build-info.json  <- build start time and every bundled source file
//
// Every output sits two folders below the project root, like its source, so
// paths the sources compute from import.meta.url (resources/examples, the
// project root) stay the same. Pure-JavaScript packages whose loading is
// measurable are bundled in (INLINE: zod alone is ~100 small ES modules, about
// 50 ms to resolve and load in each thread); every other package stays
// external and is loaded from node_modules as usual (highs finds its .wasm next
// to itself, piscina its own worker file, @napi-rs/canvas its native addon).
// Names are kept (keepNames), so nothing that prints a class or function name
// differs from the sources. The bundled dispatcher
// starts out/worker/worker-entry.js (see __MECHSTUDIO_WORKER_BUNDLE__ in
// src-main/dispatcher/dispatcher.ts).
//
// bin/mechstudio.js and scripts/start.mjs use a bundle only when
// build-info.json says no bundled source changed after the build started
// (scripts/built-fresh.mjs); otherwise they run the sources through tsx.
//
// Where esbuild is not installed, says so and exits 0: everything then runs
// through tsx, as before.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { writeBuildRecord } from './built-fresh.mjs';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
// `prepare` passes --tolerant: a source that does not compile must not fail
// `npm install`; the launchers then run the sources through tsx, which reports it.
const tolerant = process.argv.includes('--tolerant');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.log('build:cli: esbuild is not installed; the CLI and workers will run through tsx.');
  process.exit(0);
}

const entries = [
  { src: 'src-main/cli/main.ts', out: 'out/cli/main.js' },
  { src: 'src-worker/worker-entry.ts', out: 'out/worker/worker-entry.js' },
  // The decomposition's pricing threads (src-worker/lp/pricing/pricing-pool.ts loads ./pricing-worker.js next to the
  // worker bundle).
  { src: 'src-worker/lp/pricing/pricing-worker.ts', out: 'out/worker/pricing-worker.js' },
  // The same threads for `mechstudio worker`'s queue pricing (src-main/queue/pricing-service.ts), next to the CLI
  // bundle.
  { src: 'src-worker/lp/pricing/pricing-worker.ts', out: 'out/cli/pricing-worker.js' },
  // The all-pairs privacy check's scanning threads (src-worker/check/scan-threads.ts loads ./check-worker.js the same
  // way).
  { src: 'src-worker/check/check-worker.ts', out: 'out/worker/check-worker.js' },
  // The dense master's helper thread (src-worker/lp/decomposition/master-rows.ts loads ./master-worker.js the same way).
  { src: 'src-worker/lp/decomposition/master-worker.ts', out: 'out/worker/master-worker.js' },
  { src: 'src-main/web/main.ts', out: 'out/web/main.js' },
];
const infoFile = join(root, 'out/cli/build-info.json');

// Packages bundled into the outputs. chart.js and its plugin go together (one
// copy of chart.js, where the plugin registers itself).
const INLINE = new Set(['zod', 'fft.js', 'chart.js', 'chartjs-chart-matrix', '@kurkle/color']);
const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
const externalUnlessInline = {
  name: 'external-unless-inline',
  setup(b) {
    // Bare specifiers only (relative and absolute paths are sources).
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || !INLINE.has(packageName(args.path)))
        return { path: args.path, external: true };
      return undefined;
    });
  },
};

const t0 = Date.now();
// Sources edited from this instant on make the bundles stale (mtime > builtAt).
// One second of slack for file systems with coarse timestamps.
const builtAt = t0 - 1000;
// A stale or half-written build must never look fresh: drop the record first.
rmSync(infoFile, { force: true });

const options = (e) => ({
  absWorkingDir: root,
  entryPoints: [join(root, e.src)],
  outfile: join(root, e.out),
  write: false,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [externalUnlessInline],
  // CommonJS code bundled into an ES module (fft.js) gets a real require.
  banner: {
    js: "import { createRequire as __mechstudioCreateRequire } from 'node:module'; const require = __mechstudioCreateRequire(import.meta.url);",
  },
  minify: true,
  keepNames: true,
  // For `node --enable-source-maps bin/mechstudio.js ...`; ignored otherwise.
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  define: { __MECHSTUDIO_WORKER_BUNDLE__: JSON.stringify('../worker/worker-entry.js') },
});

let results;
try {
  results = await Promise.all(entries.map((e) => esbuild.build(options(e))));
} catch (err) {
  if (!tolerant) throw err;
  console.log(
    `build:cli: the sources did not build (${String(err?.message ?? err).split('\n')[0]}); the CLI and workers will run through tsx.`,
  );
  process.exit(0);
}

// Each file replaced atomically (write aside, rename over): a CLI started
// while this runs loads either the previous bundle or the new one, never half
// of one.
const inputs = new Set();
let bytes = 0;
for (const result of results) {
  for (const p of Object.keys(result.metafile.inputs)) inputs.add(relative(root, resolve(root, p)));
  for (const f of result.outputFiles) {
    mkdirSync(dirname(f.path), { recursive: true });
    const tmp = `${f.path}.${process.pid}.tmp`;
    writeFileSync(tmp, f.contents);
    renameSync(tmp, f.path);
    bytes += f.contents.byteLength;
  }
}

writeBuildRecord(
  root,
  relative(root, infoFile),
  builtAt,
  [...inputs],
  'Written by scripts/build-cli.mjs. The bundles in out/cli, out/worker and out/web are used only while no input is newer than builtAt.',
);
if (!quiet) {
  console.log(
    `build:cli: ${entries.map((e) => e.out).join(', ')} from ${inputs.size} sources (${(bytes / 1e6).toFixed(1)} MB with source maps) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}
