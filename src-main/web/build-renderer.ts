import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Folders whose files end up in the renderer bundle (the page imports the protocol and a few pure engine modules). */
const RENDERER_SOURCES = ['src-renderer', 'src-worker'];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, e)));
  return newest;
}

/** True when out/renderer is missing or older than any renderer source. */
export function rendererIsStale(root: string, outDir = join(root, 'out/renderer')): boolean {
  const index = join(outDir, 'index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  return RENDERER_SOURCES.some((d) => newestMtime(join(root, d)) > built);
}

/**
 * Build only the renderer (what web mode serves), with the same settings as
 * the renderer section of electron.vite.config.ts, so web mode never needs
 * the Electron main/preload bundles.
 */
export async function buildRenderer(root: string, outDir = join(root, 'out/renderer')): Promise<void> {
  const { build } = await import('vite');
  const { svelte } = await import('@sveltejs/vite-plugin-svelte');
  await build({
    configFile: false,
    root: resolve(root, 'src-renderer'),
    base: './',
    logLevel: 'warn',
    plugins: [svelte()],
    build: {
      outDir,
      emptyOutDir: true,
      rollupOptions: { input: { index: resolve(root, 'src-renderer/index.html') }, checks: { pluginTimings: false } } as Record<string, unknown>,
    },
  });
}

export async function ensureRendererBuilt(root: string, log: (s: string) => void = () => {}): Promise<void> {
  if (!rendererIsStale(root)) return;
  log('Building the renderer (out/renderer) ...');
  await buildRenderer(root);
}
