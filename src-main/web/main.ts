/**
 * Web mode entry (`npm run web`, or `npm start` without the Electron binary):
 * builds the renderer if needed, starts the dispatcher and serves the app on
 * 127.0.0.1. Options: --port N (default 5178; 0 = any free port), --no-build.
 */
import { dirname, join, resolve } from 'node:path';
import { defaultConfigDir } from '../project/recent';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Dispatcher } from '../dispatcher/dispatcher';
import { MechStudioHost } from './host';
import { createProjectStore } from './project-store';
import { startWebServer, type RunningWebServer } from './server';
import { ensureRendererBuilt } from './build-renderer';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface WebApp {
  server: RunningWebServer;
  close(): Promise<void>;
}

export function appVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

export async function startWebApp(opts: { port?: number; threads?: number; configDir?: string; build?: boolean; log?: (s: string) => void } = {}): Promise<WebApp> {
  if (opts.build !== false) await ensureRendererBuilt(ROOT, opts.log);
  const dispatcher = new Dispatcher(opts.threads !== undefined ? { threads: opts.threads } : {});
  const host = new MechStudioHost({
    mode: 'web',
    version: appVersion(),
    jobs: { submit: (r) => dispatcher.submit(r), cancel: (id) => dispatcher.cancel(id), stop: (id) => dispatcher.stop(id), onJobEvent: (l) => dispatcher.onJobEvent(l), workers: dispatcher.threads },
    store: createProjectStore(dispatcher, {
      examplesDir: process.env.MECHSTUDIO_EXAMPLES_DIR ?? join(ROOT, 'resources/examples'),
      configDir: opts.configDir ?? defaultConfigDir(),
    }),
  });
  const token = process.env.MECHSTUDIO_WEB_TOKEN ?? randomBytes(18).toString('base64url');
  const server = await startWebServer({ port: opts.port ?? 5178, rendererDir: join(ROOT, 'out/renderer'), api: host, token });
  return {
    server,
    close: async () => {
      await server.close();
      host.dispose();
      await dispatcher.close();
    },
  };
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const pi = args.indexOf('--port');
  const port = pi >= 0 ? Number(args[pi + 1]) : Number(process.env.MECHSTUDIO_PORT ?? 5178);
  startWebApp({ port, build: !args.includes('--no-build'), log: (s) => console.log(s) })
    .then((app) => {
      console.log(`Mechanism Studio (web mode) is running at ${app.server.url}  (Ctrl+C to stop)`);
      const stop = (): void => void app.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    })
    .catch((e: unknown) => {
      const msg = e instanceof Error ? e.message : String(e);
      console.error(/EADDRINUSE/.test(msg) ? `port ${port} is in use: pass --port N (0 = any free port)` : `web mode failed: ${msg}`);
      process.exit(1);
    });
}
