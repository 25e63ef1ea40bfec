/**
 * A real redis-server on a free loopback port (no persistence) and
 * `mechstudio worker` processes for the queue suites. redis-server is the
 * Debian package (.ci/run installs it); it refuses --port 0, so a free port
 * is found by binding 127.0.0.1:0 and closing it first.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { runCli, type CliRun } from './cli-run';

export const bin = fileURLToPath(new URL('../../bin/mechstudio.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

export function redisInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface RedisServer {
  port: number;
  url: string;
  stop(): Promise<void>;
  /** Kill it, wait downMs, start an empty one on the same port (no persistence: every key is gone). */
  restart(downMs?: number): Promise<void>;
}

/** redis-server on `port`, resolved once it accepts connections (null when it did not start: the port was taken). */
async function spawnRedis(port: number): Promise<{ child: ChildProcess; log: string } | null> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000);
    const onData = (d: Buffer): void => {
      log += d.toString();
      if (/Ready to accept connections/.test(log)) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (ready) return { child, log };
  child.kill('SIGKILL');
  lastLog = log;
  return null;
}
let lastLog = '';

const killed = (child: ChildProcess): Promise<void> =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

/**
 * Start redis-server; resolves once it accepts connections. restart() kills it and starts an empty one on the same
 * port.
 */
export async function startRedis(): Promise<RedisServer> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const got = await spawnRedis(port);
    if (got) {
      let child = got.child;
      return {
        port,
        url: `redis://127.0.0.1:${port}/0`,
        stop: () => killed(child),
        restart: async (downMs = 0) => {
          await killed(child);
          await new Promise((r) => setTimeout(r, downMs));
          const again = await spawnRedis(port);
          if (!again) throw new Error(`redis-server did not start again on ${port}: ${lastLog.slice(0, 500)}`);
          child = again.child;
        },
      };
    }
    if (attempt >= 2) throw new Error(`redis-server did not start: ${lastLog.slice(0, 500)}`);
  }
}

/**
 * How long a wait on a worker's log may last before it is called a hang: a worker's start (Node, BullMQ and the engine
 * loaded) took over 20 s at load average 8 on two cores, so the guard sits well under the integration tests' 180 s.
 */
const WAIT_GUARD_MS = 120_000;

export interface WorkerProc {
  child: ChildProcess;
  log(): string;
  /**
   * Resolves when the worker's log matches `re`; rejects when the worker exits first, or after `ms` (a guard against a
   * hang, not a timing: the default WAIT_GUARD_MS is far above what a worker takes on a loaded machine).
   */
  waitFor(re: RegExp, ms?: number): Promise<string>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startWorker(
  url: string,
  opts: { concurrency?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<WorkerProc> {
  const child = spawn(
    process.execPath,
    [bin, 'worker', '--queue', url, '--concurrency', String(opts.concurrency ?? 1)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...opts.env },
    },
  );
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer): void => {
    text += d.toString();
    for (const w of [...waiters]) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const w: WorkerProc = {
    child,
    log: () => text,
    waitFor: (re, ms = WAIT_GUARD_MS) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const m = re.exec(text);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m[0]);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`worker log never matched ${re}: ${text.slice(-800)}`));
        }, ms);
        waiters.add(check);
        child.once('exit', () => {
          if (waiters.has(check)) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`worker exited before ${re}: ${text.slice(-800)}`));
          }
        });
        check();
      }),
    kill: (signal = 'SIGKILL') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
  await w.waitFor(/taking jobs from/);
  return w;
}

export type { CliRun };

export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCli(args, { env });
}
