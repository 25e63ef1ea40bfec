/**
 * Server-side rendering of the renderer's Svelte components for unit tests:
 * the components (and runes modules, *.svelte.ts) are compiled by the Svelte
 * plugin through a throw-away Vite server, so a test can check what they draw
 * for given props, or what a runes class does (compiled for the server, its
 * $state fields are plain fields: the logic without the reactivity).
 */
import { afterAll, beforeAll } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

type Render = (component: unknown, o: { props: Record<string, unknown> }) => { body: string };

export interface SsrModules {
  /** A loaded module, by the path given (e.g. '/src-renderer/lib/toasts.svelte.ts'). */
  module: (path: string) => Record<string, unknown>;
  /** svelte/server's render, set once the server is up. */
  render: Render;
}

export interface SsrComponents extends SsrModules {
  /** The HTML body the loaded component at `path` (one of those given: '/src-renderer/editors/GridEditor.svelte') draws. */
  html: (path: string, props: Record<string, unknown>) => string;
}

/** Starts the server before the file's tests, loads the modules, closes it after. */
export function useSsrModules(paths: string[]): SsrModules {
  let server: ViteDevServer | undefined;
  const loaded = new Map<string, Record<string, unknown>>();
  const out: SsrModules = {
    render: () => {
      throw new Error('the SSR server is not started yet');
    },
    module: (path) => {
      const m = loaded.get(path);
      if (!m) throw new Error(`module not loaded: ${path}`);
      return m;
    },
  };
  beforeAll(async () => {
    server = await createServer({
      configFile: false,
      root: process.cwd(),
      plugins: [svelte()],
      server: { middlewareMode: true, hmr: false, ws: false },
      appType: 'custom',
      logLevel: 'error',
    });
    out.render = ((await server.ssrLoadModule('svelte/server')) as { render: Render }).render;
    for (const p of paths) loaded.set(p, await server.ssrLoadModule(p));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });
  return out;
}

/** Starts the server before the file's tests, loads the components, closes it after. */
export function useSsrComponents(paths: string[]): SsrComponents {
  const modules = useSsrModules(paths);
  return {
    render: (c, o) => modules.render(c, o),
    module: (path) => modules.module(path),
    html: (path, props) => modules.render(modules.module(path).default, { props }).body,
  };
}
