/**
 * The app's "where do jobs run" setting (web mode and the Electron main
 * process): the local pool (default) or a Redis queue served by `mechstudio
 * worker` processes, switched at run time through the API (queue.status,
 * queue.connect, queue.useLocal).
 *
 * Guarantees:
 * - The queue URL's credentials never leave this module: status() carries
 *   the redacted URL only, errors are redacted, nothing is logged.
 * - connect() answers within seconds: an unreachable Redis is one clear line
 *   (the probe of src-main/queue/connection.ts), and the runner is unchanged.
 * - Switching affects new jobs only (SwitchableRunner): running jobs finish
 *   where they started.
 * - In web mode the queue is the operator's (`operatorOnly`): it comes from
 *   --queue / MECHSTUDIO_QUEUE only, the page sees it and cannot change it
 *   (one page could otherwise move every session's jobs to a Redis of its
 *   choosing, kept for the next start).
 * - The choice is kept in `settings.json` of the app's config dir (Electron
 *   userData; web mode MECHSTUDIO_CONFIG_DIR or ~/.config/mechstudio),
 *   written atomically with mode 0600 (the URL may hold a password, as
 *   ~/.netrc does). --queue / MECHSTUDIO_QUEUE win over it at start and are
 *   not saved until the user connects or switches in the settings.
 */
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ApiError, type QueueStatus } from '../../src-shared/protocol';
import type { JobRunner } from '../dispatcher/job-runner';
import type { SwitchableRunner } from '../dispatcher/switchable-runner';
import { parseQueueUrl, redact, type QueueTarget } from '../queue/connection';
import { readRegularFileSync, writeFileAtomic } from '../fs/safe-fs';
import { toJobError } from './api-host';

/** A queue runner as the settings need it (QueueClient). */
interface QueueRunner extends JobRunner {
  workerCount(): Promise<number | null>;
}

interface QueueSettingsOptions {
  runner: SwitchableRunner;
  /** Where settings.json lives; null keeps the choice for this session only. */
  configDir: string | null;
  /** Only the command-line queue, never saved or changed through the API (web mode). */
  operatorOnly?: boolean;
  /** Connect to a queue (default: QueueClient.connect, which probes Redis first). */
  connect?: (target: QueueTarget) => Promise<QueueRunner>;
}

const SETTINGS_FILE = 'settings.json';
const settingsSchema = z.object({ queue: z.string().max(2048).nullable().optional() });

/** The saved queue URL, or null (no file, unreadable or malformed: the default, the local pool). */
export function readSavedQueue(configDir: string): string | null {
  try {
    const raw = JSON.parse(readRegularFileSync(join(configDir, SETTINGS_FILE), 'settings', 64 * 1024)) as unknown;
    const parsed = settingsSchema.safeParse(raw);
    return parsed.success ? (parsed.data.queue ?? null) : null;
  } catch {
    return null;
  }
}

/** Save the queue URL (null = local pool); false when the file cannot be written. */
function saveQueue(configDir: string, url: string | null): boolean {
  try {
    const file = writeFileAtomic(
      join(configDir, SETTINGS_FILE),
      `${JSON.stringify({ queue: url }, null, 2)}\n`,
      'settings',
    );
    chmodSync(file, 0o600);
    return true;
  } catch {
    return false;
  }
}

/** How long status() waits for Redis to say how many workers are connected (then: unknown). */
const WORKER_COUNT_MS = 2000;

/**
 * The queue's worker count, or null when Redis does not say within `ms` (a status never waits on a dead connection).
 */
async function workersWithin(client: QueueRunner, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      client.workerCount().catch(() => null),
      new Promise<null>((r) => (timer = setTimeout(() => r(null), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function defaultConnect(target: QueueTarget): Promise<QueueRunner> {
  const { QueueClient } = await import('../queue/client');
  return QueueClient.connect(target);
}

export class QueueSettings {
  private target: QueueTarget | null = null;
  private client: QueueRunner | null = null;
  private source: QueueStatus['source'] = 'default';
  private problem: string | null = null;
  private persisted: boolean;
  /** connect/useLocal one at a time. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: QueueSettingsOptions) {
    this.persisted = opts.configDir !== null && opts.operatorOnly !== true;
  }

  /**
   * The runner at start: the command-line queue (--queue / MECHSTUDIO_QUEUE; an unreachable one throws, the
   * caller decides), else the saved one (unreachable: the local pool, with the reason in status().problem).
   */
  async start(commandLine: string | undefined): Promise<void> {
    if (commandLine !== undefined) {
      await this.switchTo(parseQueueUrl(commandLine));
      this.source = 'command-line';
      return;
    }
    const saved = this.opts.configDir === null || this.opts.operatorOnly ? null : readSavedQueue(this.opts.configDir);
    if (saved === null) return;
    try {
      await this.switchTo(parseQueueUrl(saved));
      this.source = 'settings';
    } catch (e) {
      this.problem = `the saved job queue was not used, jobs run on this computer: ${toJobError(e).message}`;
    }
  }

  async status(): Promise<QueueStatus> {
    const t = this.target;
    const workersSeen = this.client ? await workersWithin(this.client, WORKER_COUNT_MS) : null;
    return {
      runner: this.client ? 'queue' : 'local',
      url: t ? t.redacted : null,
      prefill: t && !t.redacted.includes('***@') ? t.redacted : null,
      source: this.client ? this.source : 'default',
      localThreads: this.opts.runner.local.threads,
      workersSeen,
      draining: this.opts.runner.draining,
      problem: this.problem,
      persisted: this.persisted,
      changeable: this.opts.operatorOnly !== true,
    };
  }

  /** Connect to the queue at `url` and send new jobs there; rejects with one ApiError line (runner unchanged). */
  connect(url: string): Promise<QueueStatus> {
    return this.serial(async () => {
      this.refuseIfOperatorOnly();
      let target: QueueTarget;
      try {
        target = parseQueueUrl(url);
      } catch (e) {
        throw new ApiError(toJobError(e));
      }
      try {
        await this.switchTo(target);
      } catch (e) {
        const err = toJobError(e);
        throw new ApiError({ code: err.code, message: redact(target, err.message) });
      }
      this.source = 'settings';
      this.problem = null;
      this.save(url);
      return this.status();
    });
  }

  /** New jobs run on the local pool again. */
  useLocal(): Promise<QueueStatus> {
    return this.serial(async () => {
      this.refuseIfOperatorOnly();
      this.opts.runner.use(null);
      this.client = null;
      this.target = null;
      this.source = 'default';
      this.problem = null;
      this.save(null);
      return this.status();
    });
  }

  private refuseIfOperatorOnly(): void {
    if (this.opts.operatorOnly)
      throw new ApiError({
        code: 'not-applicable',
        message:
          "the job queue is set by the server's operator (--queue or MECHSTUDIO_QUEUE when web mode starts); the page cannot change it",
      });
  }

  private async switchTo(target: QueueTarget): Promise<void> {
    const client = await (this.opts.connect ?? defaultConnect)(target);
    this.opts.runner.use(client);
    this.client = client;
    this.target = target;
  }

  private save(url: string | null): void {
    this.persisted =
      this.opts.configDir !== null && this.opts.operatorOnly !== true && saveQueue(this.opts.configDir, url);
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const next = this.chain.then(f, f);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
