/**
 * Web mode entry (`npm run web`, or `npm start` without the Electron binary):
 * builds the renderer if needed, starts the dispatcher and serves the app on
 * 127.0.0.1. Options: --port N (default 5178; 0 = any free port), --no-build,
 * --queue redis://HOST:PORT[/DB] (or MECHSTUDIO_QUEUE): run the app's jobs on
 * `mechstudio worker` processes through that Redis queue instead of the local
 * pool (the default).
 */
import { dirname, join, resolve } from 'node:path';
import { defaultConfigDir } from '../project/recent';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Dispatcher } from '../dispatcher/dispatcher';
import type { JobRunner } from '../dispatcher/job-runner';
import { parseQueueUrl } from '../queue/connection';
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

/** The local pool, or the queue client when a queue URL is given (connects first: an unreachable Redis fails the start with one line). */
export async function jobRunner(opts: { threads?: number; queue?: string }): Promise<JobRunner> {
  if (opts.queue === undefined) return new Dispatcher(opts.threads !== undefined ? { threads: opts.threads } : {});
  const { QueueClient } = await import('../queue/client');
  return QueueClient.connect(parseQueueUrl(opts.queue));
}

export async function startWebApp(opts: { port?: number; threads?: number; configDir?: string; build?: boolean; log?: (s: string) => void; queue?: string } = {}): Promise<WebApp> {
  if (opts.build !== false) await ensureRendererBuilt(ROOT, opts.log);
  const dispatcher = await jobRunner(opts);
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
  const qi = args.indexOf('--queue');
  const queue = qi >= 0 ? args[qi + 1] : process.env.MECHSTUDIO_QUEUE || undefined;
  startWebApp({ port, build: !args.includes('--no-build'), log: (s) => console.log(s), ...(queue !== undefined ? { queue } : {}) })
    .then((app) => {
      console.log(`Mechanism Studio (web mode) is running at ${app.server.url}  (Ctrl+C to stop)`);
      if (queue !== undefined) console.log(`jobs run on the queue at ${parseQueueUrl(queue).redacted} (start workers with: mechstudio worker --queue URL)`);
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
