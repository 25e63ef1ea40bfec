/**
 * Server-side rendering of the renderer's Svelte components for unit tests:
 * the components are compiled by the Svelte plugin through a throw-away Vite
 * server, so a test can check what they draw for given props.
 */
import { afterAll, beforeAll } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export type Render = (component: unknown, o: { props: Record<string, unknown> }) => { body: string };

export interface SsrComponents {
  /** svelte/server's render, set once the server is up. */
  render: Render;
  /** The loaded components, by the paths given (e.g. '/src-renderer/editors/GridEditor.svelte'). */
  component: (path: string) => unknown;
}

/** Starts the server before the file's tests, loads the components, closes it after. */
export function useSsrComponents(paths: string[]): SsrComponents {
  let server: ViteDevServer | undefined;
  const loaded = new Map<string, unknown>();
  const out: SsrComponents = {
    render: () => {
      throw new Error('the SSR server is not started yet');
    },
    component: (path) => {
      if (!loaded.has(path)) throw new Error(`component not loaded: ${path}`);
      return loaded.get(path);
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
    for (const p of paths) loaded.set(p, ((await server.ssrLoadModule(p)) as { default: unknown }).default);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });
  return out;
}
