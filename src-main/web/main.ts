/**
 * Web mode entry (`npm run web`, or `npm start` without the Electron binary):
 * builds the renderer if needed, starts the dispatcher and serves the app on
 * 127.0.0.1. Options: --port N (default 5178; 0 = any free port), --no-build,
 * --queue redis://HOST:PORT[/DB] (or MECHSTUDIO_QUEUE): run the app's jobs on
 * `mechstudio worker` processes through that Redis queue instead of the local
 * pool (the default); the page shows the queue but cannot change it (the
 * server's settings are its operator's). --root DIR (or MECHSTUDIO_WEB_ROOT;
 * default the user's home): the only folder whose files the page may read or
 * write (src-main/fs/workspace.ts).
 */
import { dirname, join, resolve } from 'node:path';
import { defaultConfigDir } from '../project/recent';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Dispatcher } from '../dispatcher/dispatcher';
import { ChannelStore } from '../dispatcher/channel-store';
import { MechStudioHost, jobService } from '../host/host';
import { QueueSettings } from '../host/queue-settings';
import { SwitchableRunner } from '../dispatcher/switchable-runner';
import { appJobs } from '../dispatcher/fan-out';
import { createProjectStore } from '../host/project-store';
import { startWebServer, type RunningWebServer } from './server';
import { ensureRendererBuilt } from './build-renderer';
import { webRootFrom, workspaceRoot } from '../fs/workspace';
import { Transfers } from '../host/transfers';
import { messageOf } from '../../src-shared/errors';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface WebApp {
  server: RunningWebServer;
  settings: QueueSettings;
  /** The workspace root: the only folder the page's paths may lead to. */
  root: string;
  close(): Promise<void>;
}

function appVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/**
 * The app's job runner: the local pool, switchable at run time to a queue by the settings (queue.* API);
 * `queue` (--queue / MECHSTUDIO_QUEUE) connects at start, and an unreachable one fails the start with one line.
 */
export async function appRunner(opts: {
  threads?: number;
  queue?: string;
  configDir: string;
  workerFile?: string;
  /**
   * Only `queue` (--queue / MECHSTUDIO_QUEUE), never the saved one nor one the page chooses (web mode: the operator's).
   */
  operatorQueue?: boolean;
  /** Web mode's workspace root: the pool's domain-file reads are checked on the descriptor to lie under it. */
  readRoot?: string;
}): Promise<{ runner: SwitchableRunner; settings: QueueSettings; channels: ChannelStore }> {
  // kept channels (optimal LPs) survive a restart: the app's cache in the config dir, and each saved project's channel
  // folder
  const channels = new ChannelStore({ cacheDir: join(opts.configDir, 'channels') });
  const local = new Dispatcher({
    channels,
    ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
    ...(opts.workerFile !== undefined ? { workerFile: opts.workerFile } : {}),
    ...(opts.readRoot !== undefined ? { readRoot: opts.readRoot } : {}),
  });
  const runner = new SwitchableRunner(local);
  const settings = new QueueSettings({ runner, configDir: opts.configDir, operatorOnly: opts.operatorQueue === true });
  try {
    await settings.start(opts.queue);
  } catch (e) {
    await runner.close();
    throw e;
  }
  return { runner, settings, channels };
}

async function startWebApp(
  opts: {
    port?: number;
    threads?: number;
    configDir?: string;
    build?: boolean;
    log?: (s: string) => void;
    queue?: string;
    root?: string;
  } = {},
): Promise<WebApp> {
  // the workspace first: a root that is not a folder fails the start before anything else starts
  const paths = await workspaceRoot(webRootFrom(opts.root));
  if (opts.build !== false) await ensureRendererBuilt(ROOT, opts.log);
  const configDir = opts.configDir ?? defaultConfigDir();
  const { runner, settings, channels } = await appRunner({
    ...opts,
    configDir,
    operatorQueue: true,
    readRoot: paths.root!,
  });
  // exports and saves leave as browser downloads, projects arrive as uploads (never a server path in a message)
  const transfers = new Transfers();
  const host = new MechStudioHost({
    mode: 'web',
    version: appVersion(),
    // sweeps and splittable case studies run as parts on the pool's threads or the queue's workers
    jobs: jobService(appJobs(runner)),
    store: createProjectStore(runner, {
      examplesDir: process.env.MECHSTUDIO_EXAMPLES_DIR ?? join(ROOT, 'resources/examples'),
      configDir,
    }),
    queue: settings,
    channels,
    paths,
    transfers,
  });
  const token = process.env.MECHSTUDIO_WEB_TOKEN ?? randomBytes(18).toString('base64url');
  let server: RunningWebServer;
  try {
    server = await startWebServer({
      port: opts.port ?? 5178,
      rendererDir: join(ROOT, 'out/renderer'),
      api: host,
      token,
      transfers,
    });
  } catch (e) {
    host.dispose();
    await runner.close();
    await transfers.dispose();
    throw e;
  }
  return {
    server,
    settings,
    root: paths.root!,
    close: async () => {
      await server.close();
      host.dispose();
      await runner.close();
      await transfers.dispose();
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
  const ri = args.indexOf('--root');
  const root = ri >= 0 ? args[ri + 1] : undefined;
  startWebApp({
    port,
    build: !args.includes('--no-build'),
    log: (s) => console.log(s),
    ...(queue !== undefined ? { queue } : {}),
    ...(root !== undefined ? { root } : {}),
  })
    .then((app) => {
      console.log(`Mechanism Studio (web mode) is running at ${app.server.url}  (Ctrl+C to stop)`);
      console.log(
        `the page may read and write files under ${app.root} only (--root DIR), hidden files and folders excepted`,
      );
      void app.settings.status().then((st) => {
        if (st.runner === 'queue')
          console.log(`jobs run on the queue at ${st.url} (start workers with: mechstudio worker --queue URL)`);
        if (st.problem) console.log(st.problem);
      });
      const stop = (): void => void app.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    })
    .catch((e: unknown) => {
      const msg = messageOf(e);
      console.error(
        /EADDRINUSE/.test(msg)
          ? `port ${port} is in use: pass --port N (0 = any free port)`
          : `web mode failed: ${msg}`,
      );
      process.exit(1);
    });
}
