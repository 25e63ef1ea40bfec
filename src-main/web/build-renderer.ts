import { join, relative, resolve } from 'node:path';
import { builtIsFresh, sourceFiles, writeBuildRecord } from '../../scripts/built-fresh.mjs';
import { RENDERER_OUTPUT } from './renderer-chunks';

/**
 * Folders whose files can end up in the renderer bundle: the page, what it shares with the other processes
 * (the protocol, grammars, charts, ...) and the few pure engine modules it imports.
 */
const RENDERER_SOURCES = ['src-renderer', 'src-shared', 'src-worker'];

const record = (root: string, outDir: string): string => relative(root, join(outDir, 'build-info.json'));

/**
 * True when out/renderer is missing, has no build record, or a renderer source changed since it was built
 * (scripts/built-fresh.mjs).
 */
export function rendererIsStale(root: string, outDir = join(root, 'out/renderer')): boolean {
  return !builtIsFresh(root, [relative(root, join(outDir, 'index.html'))], record(root, outDir));
}

/**
 * Build only the renderer (what web mode serves), with the same settings as
 * the renderer section of electron.vite.config.ts, so web mode never needs
 * the Electron main/preload bundles.
 */
export async function buildRenderer(root: string, outDir = join(root, 'out/renderer')): Promise<void> {
  const { build } = await import('vite');
  const { svelte } = await import('@sveltejs/vite-plugin-svelte');
  // Sources edited from this instant on make the page stale.
  const builtAt = Date.now() - 1000;
  await build({
    configFile: false,
    root: resolve(root, 'src-renderer'),
    base: './',
    logLevel: 'warn',
    plugins: [svelte()],
    build: {
      outDir,
      emptyOutDir: true,
      rollupOptions: {
        input: { index: resolve(root, 'src-renderer/index.html') },
        output: RENDERER_OUTPUT,
        checks: { pluginTimings: false },
      } as Record<string, unknown>,
    },
  });
  recordRendererBuild(root, outDir, builtAt);
}

/**
 * The renderer build's record: every file under RENDERER_SOURCES, as of `builtAt` (ms, taken before the build started).
 */
export function recordRendererBuild(root: string, outDir: string, builtAt: number): void {
  const note =
    'Written by src-main/web/build-renderer.ts. Web mode serves this page only while no input is newer than builtAt.';
  writeBuildRecord(root, record(root, outDir), builtAt, sourceFiles(root, RENDERER_SOURCES), note);
}

export async function ensureRendererBuilt(root: string, log: (s: string) => void = () => {}): Promise<void> {
  if (!rendererIsStale(root)) return;
  log('Building the renderer (out/renderer) ...');
  await buildRenderer(root);
}
