/**
 * The Redis side of the job queue: the queue URL (from --queue or the
 * environment), its redacted form (the only form ever printed), the ioredis
 * options built from it, and a bounded probe that turns "Redis is not there"
 * into one clear error in a few seconds instead of ioredis' endless retries.
 *
 * Names: every key lives under the prefix `mechstudio`, the queue is `jobs`;
 * cancellations travel on the channel `mechstudio:jobs:cancel` and are
 * remembered for an hour in `mechstudio:jobs:cancelled:ID` (a job picked up
 * after its client cancelled it is dropped).
 */
import type { RedisOptions } from 'ioredis';
import { MechError } from '../../src-shared/errors';

export const QUEUE_PREFIX = 'mechstudio';
const QUEUE_NAME = 'jobs';
const jobsKey = (suffix: string): string => `${QUEUE_PREFIX}:${QUEUE_NAME}:${suffix}`;

/** The job queue's names in Redis, for the client and the workers: BullMQ's queue, its keys, the channels. */
export const JOB_QUEUE = {
  name: QUEUE_NAME,
  prefix: QUEUE_PREFIX,
  /** BullMQ's event stream of the queue. */
  events: jobsKey('events'),
  /** BullMQ's hash of one job. */
  job: (jobId: string): string => jobsKey(jobId),
  cancelChannel: jobsKey('cancel'),
  /** Stop (keep the best result so far) of a running optimal LP: the worker stops it on its pool. */
  stopChannel: jobsKey('stop'),
  cancelled: (jobId: string): string => jobsKey(`cancelled:${jobId}`),
};

/** BullMQ 5 needs Redis >= 5.0 (6.2 recommended); the Debian package is 7.0. */
const MIN_REDIS = [5, 0] as const;

export interface QueueTarget {
  /** redis://[***@]HOST:PORT/DB: the URL with any user name and password masked. */
  redacted: string;
  options: RedisOptions;
  /** Secrets to mask in any message that could echo them (the password, the user name, the raw URL). */
  secrets: string[];
}

/**
 * Stalled-job timing. A worker holds a lock on each running job and renews it
 * every lockMs/2; a SIGKILLed worker's lock lapses after lockMs, and the next
 * stalled check of a live worker (every stalledMs) puts the job back in the
 * queue for another worker. A job whose worker dies more than maxStalled
 * times fails ('crashed'). The environment may shorten these (the tests do,
 * so a kill is recovered in seconds). The lock must outlast taking the
 * largest job off the queue (BullMQ fetches and parses its data before the
 * worker can renew the lock: about 3 s for the 128 MiB a request may carry
 * on a busy machine); a shorter one loses such a job's lock before the
 * worker can even fail it, and the job comes back again and again.
 */
export function stallSettings(env: NodeJS.ProcessEnv = process.env): {
  lockMs: number;
  stalledMs: number;
  maxStalled: number;
} {
  const int = (name: string, dflt: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return dflt;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min || v > max)
      throw new MechError(
        'invalid-input',
        `${name} must be an integer from ${min} to ${max}, got '${raw.slice(0, 40)}'`,
      );
    return v;
  };
  const lockMs = int('MECHSTUDIO_QUEUE_LOCK_MS', 30_000, 1000, 3_600_000);
  const stalledMs = int('MECHSTUDIO_QUEUE_STALLED_MS', Math.min(15_000, lockMs), 500, 3_600_000);
  const maxStalled = int('MECHSTUDIO_QUEUE_MAX_STALLED', 2, 1, 100);
  return { lockMs, stalledMs, maxStalled };
}

/**
 * Where the queue is: the --queue value, else MECHSTUDIO_QUEUE, else (for
 * workers only) REDIS_URL. Returns null when none is set.
 */
export function queueUrlFrom(flag: string | undefined, env: NodeJS.ProcessEnv, allowRedisUrl: boolean): string | null {
  if (flag !== undefined) return flag;
  const v = env.MECHSTUDIO_QUEUE || (allowRedisUrl ? env.REDIS_URL : undefined);
  return v ? v : null;
}

/** Parse redis://[USER:PASSWORD@]HOST:PORT[/DB] (rediss:// for TLS). Errors never contain the password. */
export function parseQueueUrl(raw: string): QueueTarget {
  const example = 'redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0';
  if (raw.trim() === '') throw new MechError('invalid-input', `--queue needs a Redis URL: ${example}`);
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    // the text may hold a password: never echo it
    throw new MechError('invalid-input', `the queue URL is not a URL; expected ${example}`);
  }
  const secrets = [raw, decodeURIComponent(u.password), decodeURIComponent(u.username)].filter((s) => s.length >= 3);
  const redactedHead = `${u.protocol}//${u.username || u.password ? '***@' : ''}${u.host}`;
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new MechError(
      'invalid-input',
      `the queue URL must start with redis:// or rediss://, got ${u.protocol}//...; expected ${example}`,
    );
  if (!u.hostname) throw new MechError('invalid-input', `the queue URL has no host; expected ${example}`);
  const port = u.port === '' ? 6379 : Number(u.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new MechError('invalid-input', `the queue URL's port must be 1..65535 (${redactedHead})`);
  const path = u.pathname.replace(/^\/+/, '');
  let db = 0;
  if (path !== '') {
    if (!/^\d{1,5}$/.test(path))
      throw new MechError(
        'invalid-input',
        `the queue URL's database must be a number (redis://HOST:PORT/DB), got '/${path.slice(0, 20)}' (${redactedHead})`,
      );
    db = Number(path);
  }
  if (u.search || u.hash)
    throw new MechError('invalid-input', `the queue URL takes no ?query or #fragment (${redactedHead})`);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const options: RedisOptions = { host, port, db };
  if (u.username) options.username = decodeURIComponent(u.username);
  if (u.password) options.password = decodeURIComponent(u.password);
  if (u.protocol === 'rediss:') options.tls = { servername: host };
  return {
    redacted: `${u.protocol}//${u.username || u.password ? '***@' : ''}${u.hostname}:${port}/${db}`,
    options,
    secrets,
  };
}

/** `message` with every secret of the target masked. */
export function redact(target: Pick<QueueTarget, 'secrets'>, message: string): string {
  let m = message;
  for (const s of [...target.secrets].sort((a, b) => b.length - a.length)) m = m.split(s).join('***');
  return m;
}

/**
 * Connect once with a hard time limit, check the server version, disconnect.
 * Throws one MechError 'queue-unreachable' naming the redacted URL and
 * nothing the remote side said or did: a closed port, a silent one, a
 * refused password and a server too old read the same, so the message
 * cannot be used to probe which ports of a host are open.
 */
export async function probeRedis(target: QueueTarget, timeoutMs = 4000): Promise<string> {
  const { Redis } = await import('ioredis');
  const r = new Redis({
    ...target.options,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    // ioredis keeps the process alive this long after a failed connect (default 2 s)
    disconnectTimeout: 50,
  });
  // the socket's own errors are not reported (they would tell an open port from a closed one)
  r.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const info = await Promise.race([
      r.connect().then(() => r.info('server')),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${(timeoutMs / 1000).toFixed(0)} s`)), timeoutMs);
      }),
    ]);
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? '0';
    const [maj = 0, min = 0] = version.split('.').map(Number);
    if (maj < MIN_REDIS[0] || (maj === MIN_REDIS[0] && min < MIN_REDIS[1])) throw new Error('too old');
    return version;
  } catch {
    throw new MechError(
      'queue-unreachable',
      `cannot use the job queue at ${target.redacted}: no Redis ${MIN_REDIS.join('.')} or newer accepted the connection within ${(timeoutMs / 1000).toFixed(0)} s (check that redis-server runs there and the URL's user and password)`,
    );
  } finally {
    clearTimeout(timer);
    r.disconnect();
  }
}
