/**
 * `mechstudio`: the command line of SPEC §8. Every command builds a protocol
 * request and runs it through the same dispatcher (worker pool) as the app.
 * Output: a readable summary on stdout, or with --json one object with the
 * keys listed in docs/cli.md; progress on stderr (a bar on a TTY). Bad input
 * exits 2 with one line on stderr; Ctrl-C cancels the job and exits 130,
 * except for an optimal LP (kind optimal), where the first Ctrl-C stops the
 * solve and writes the best mechanism found so far with its certified gap
 * (or that no bound was proved yet; exit 0), and a second one cancels.
 */
import { unlinkSync } from 'node:fs';
import { MechError, messageOf } from '../../src-shared/errors';
import { ApiError, type JobRequest, type JobResult } from '../../src-shared/protocol/index';
import { Dispatcher, isLpJob } from '../dispatcher/dispatcher';
import type { JobRunner } from '../dispatcher/job-runner';
import type { KeptChannel } from '../../src-worker/index';
import { QUEUE_PARTS } from '../dispatcher/fan-out';
import { probeRedis, type QueueTarget } from '../queue/connection';
import type { PricingFleet } from '../queue/pricing-master';
import { listExamples } from '../project/examples';
import { runProject, type RunSummary } from '../project/run-project';
import { parseArgs, type ParsedArgs } from './args';
import { ProgressReporter, type ProgressStream } from './progress';

import { USAGE, exitCodeFor } from './usage';
import { type Plan } from './plan';
import { buildPlan } from './planners';
import { afterJob } from './release-log';
import { runReport } from './report';
import {
  connectQueue,
  prepareOutputs,
  printResult,
  projectOutcome,
  runsInProcess,
  stoppedNote,
  threadsFor,
  writeOutputs,
} from './run-output';
/** The help text and exit codes, and whether a request runs in this process (tests read them here). */
export { USAGE, exitCodeFor } from './usage';
export { runsInProcess } from './run-output';

/** Where the CLI writes (stdout: results; stderr: progress and the one error line). */
export interface CliIo {
  stdout: ProgressStream;
  stderr: ProgressStream;
}

export interface MainOptions {
  /** Output streams (default process.stdout / process.stderr). */
  io?: CliIo;
  /** A dispatcher to run jobs on (not closed by main); default a new pool per call. */
  dispatcher?: Dispatcher;
  /** Install the Ctrl-C handler (default true). */
  handleSigint?: boolean;
  /** Cancels the command like Ctrl-C (for callers that run main in-process). */
  signal?: AbortSignal;
}
export async function main(argv: string[], opts: MainOptions = {}): Promise<number> {
  const stdout = opts.io?.stdout ?? process.stdout;
  const stderr = opts.io?.stderr ?? process.stderr;
  let progress: ProgressReporter | null = null;
  const fail = (code: string, message: string): number => {
    progress?.clear();
    stderr.write(`mechstudio: ${message.split('\n')[0]}\n`);
    return exitCodeFor(code);
  };
  const failWith = (e: unknown): number => {
    if (e instanceof MechError || e instanceof ApiError)
      return fail(e.code, e.code === 'cancelled' ? 'cancelled' : e.message);
    const m = messageOf(e);
    return fail('internal', m.startsWith('internal error') ? m : `internal error: ${m}`);
  };
  const interrupts = interruptsFor(stderr, () => progress?.clear());
  const { controller, stopper, onSigint } = interrupts;
  // installed before any input is read: Ctrl-C works during every wait
  const sigint = opts.handleSigint ?? true;
  if (sigint) process.on('SIGINT', onSigint);
  const onAbort = (): void => controller.abort();
  opts.signal?.addEventListener('abort', onAbort);
  if (opts.signal?.aborted) controller.abort();
  let dispatcher: JobRunner | null = null;
  let fleet: PricingFleet | null = null;
  const tempFiles: string[] = [];
  try {
    let args: ParsedArgs;
    let plan: Plan;
    let threads = 1;
    try {
      if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
        stdout.write(USAGE + '\n');
        return argv.length === 0 ? 2 : 0;
      }
      args = parseArgs(argv);
      // an LP from the start: a Ctrl-C while its inputs are read already means "stop with the best" (the job then stops
      // at once)
      interrupts.lpJob = args.command === 'mechanism' && args.flags.get('kind') === 'optimal';
      const answered = answeredAtOnce(args, stdout);
      if (answered !== null) return answered;
      const reading = new ProgressReporter(stderr, args.flags.get('quiet') === true);
      progress = reading;
      args.onReadProgress = (f, m) => reading.update(f, m);
      plan = await buildPlan(args, controller.signal);
      if (controller.signal.aborted) return fail('cancelled', 'cancelled');
      threads = threadsFor(args, plan);
      prepareOutputs(plan, tempFiles);
    } catch (e) {
      return failWith(e);
    }
    if (plan.report) return await runReport(plan.report, plan.json, stdout, threads, progress ?? undefined);
    if (plan.worker) return await serveQueue(plan.worker, args.flags.get('quiet') === true, stderr, controller.signal);
    const quiet = args.flags.get('quiet') === true;
    progress?.clear();
    for (const l of plan.warnings ?? []) stderr.write(`mechstudio: ${l}\n`);
    progress = new ProgressReporter(stderr, quiet);
    const pr = progress;
    if (plan.queue && !opts.dispatcher) dispatcher = await connectQueue(plan.queue, stderr);
    let workers = 0;
    if (plan.pricingQueue) {
      fleet = await connectPricing(
        plan.pricingQueue,
        (line) => (pr.clear(), stderr.write(`mechstudio: ${line}\n`)),
        (k) => (workers = k),
      );
      // The LP's master runs on a pool thread here, its pricing on the queue's workers (through this thread's fleet).
      dispatcher = new Dispatcher({ threads, inProcess: runsInProcess, pricing: fleet.factory });
    }
    dispatcher ??=
      opts.dispatcher ?? new Dispatcher({ threads, ...(plan.project ? {} : { inProcess: runsInProcess }) });
    if (plan.project) {
      const s = await runPlannedProject(plan, plan.project, dispatcher, controller.signal, pr);
      return projectOutcome(s, plan.json, stdout, fail);
    }
    const req = plan.request!;
    if (plan.kept) nameKeptChannel(req, plan.kept, dispatcher);
    interrupts.lpJob = isLpJob(req);
    const onProgress = (f: number | null, m: string): void =>
      pr.update(f, workers > 0 ? `${m}; pricing on ${workers} queue worker${workers === 1 ? '' : 's'}` : m);
    const result: JobResult = await dispatcher.run(req, {
      signal: controller.signal,
      stopSignal: stopper.signal,
      onProgress,
    });
    await writeOutputs(plan, result);
    const extras = await afterJob(plan, result);
    progress.clear();
    if (stopper.signal.aborted) stderr.write(`mechstudio: ${stoppedNote(result)}\n`);
    printResult(plan, req, result, stdout, extras);
    return 0;
  } catch (e) {
    return failWith(e);
  } finally {
    if (sigint) process.off('SIGINT', onSigint);
    opts.signal?.removeEventListener('abort', onAbort);
    removeTempFiles(tempFiles);
    if (dispatcher && dispatcher !== opts.dispatcher) await dispatcher.close().catch(() => undefined);
    await fleet?.close();
  }
}

/** The Ctrl-C state of one command: its cancel signal, the LP's stop signal, and whether the job is an optimal LP. */
interface Interrupts {
  controller: AbortController;
  /** An optimal LP: the first Ctrl-C stops it with the best mechanism so far (this), the next cancels. */
  stopper: AbortController;
  lpJob: boolean;
  onSigint: () => void;
}

/**
 * Ctrl-C cancels the job (a second one quits at once); for an optimal LP the first one stops it with the best mechanism
 * so far.
 */
function interruptsFor(stderr: ProgressStream, clearProgress: () => void): Interrupts {
  let interrupted = 0;
  const it: Interrupts = {
    controller: new AbortController(),
    stopper: new AbortController(),
    lpJob: false,
    onSigint: (): void => {
      interrupted++;
      clearProgress();
      if (it.lpJob && interrupted === 1) {
        stderr.write(
          'mechstudio: stopping the LP: the best mechanism found so far will be written with its certified gap, or saying there is no bound yet (Ctrl-C again to cancel)\n',
        );
        it.stopper.abort();
        return;
      }
      if (interrupted > (it.lpJob ? 2 : 1)) process.exit(130);
      stderr.write('mechstudio: cancelling (Ctrl-C again to quit at once)\n');
      it.controller.abort();
    },
  };
  return it;
}

/** The command's temporary output files, removed at the end. */
function removeTempFiles(tempFiles: string[]): void {
  for (const t of tempFiles) {
    try {
      unlinkSync(t);
    } catch {
      /* published or never written */
    }
  }
}

/**
 * `--help` anywhere, and `example --list`: answered before any input is read (null: run the command). The current
 * directory must exist.
 */
function answeredAtOnce(args: ParsedArgs, stdout: ProgressStream): number | null {
  try {
    process.cwd(); // relative paths are resolved against it
  } catch {
    throw new MechError(
      'invalid-input',
      'the current directory no longer exists; cd to an existing directory and run again',
    );
  }
  if (args.flags.get('help') === true) {
    stdout.write(USAGE + '\n');
    return 0;
  }
  if (args.command === 'example' && args.flags.get('list') !== undefined) {
    for (const e of listExamples()) stdout.write(`${e.name.padEnd(18)} ${e.title}\n`);
    return 0;
  }
  return null;
}

/** `run` / `example`: the project's items on the runner, progress on stderr (cleared at the end). */
async function runPlannedProject(
  plan: Plan,
  project: NonNullable<Plan['project']>,
  dispatcher: JobRunner,
  signal: AbortSignal,
  pr: ProgressReporter,
): Promise<RunSummary> {
  const s = await runProject(dispatcher, project.project, project.baseDir, project.out, {
    resolved: project.resolved,
    signal,
    onProgress: (f, m) => pr.update(f, m),
    // Through the queue each sweep goes out as up to QUEUE_PARTS (16) eps slices (a queue job costs ~3 ms: 16 parts
    // reach 16 worker slots for ~50 ms); locally as many slices as pool threads.
    ...(plan.queue ? { sweepParts: QUEUE_PARTS } : {}),
  });
  pr.clear();
  return s;
}

/**
 * mechanism --kind optimal --queue URL: Redis checked at once (one line when unreachable), then the queue's workers as
 * pricing engine.
 */
async function connectPricing(
  target: QueueTarget,
  log: (line: string) => void,
  onWorkers: (k: number) => void,
): Promise<PricingFleet> {
  const { PricingFleet } = await import('../queue/pricing-master');
  await probeRedis(target);
  return PricingFleet.connect(target, { log, onWorkers });
}

/**
 * A channel read from a file too large to carry inline: kept by the local pool's channel store, named by channelRef
 * (read in place by the worker).
 */
function nameKeptChannel(req: JobRequest, kept: KeptChannel, runner: JobRunner): void {
  if (!(runner instanceof Dispatcher) || (req.type !== 'check' && req.type !== 'measure' && req.type !== 'apply'))
    throw new MechError('internal', 'a large channel file needs the local worker pool');
  req.channelRef = runner.channels.put(kept);
}

/**
 * `mechstudio worker`: take jobs until Ctrl-C / SIGTERM (then finish the running ones; a second Ctrl-C quits at once).
 */
async function serveQueue(
  w: NonNullable<Plan['worker']>,
  quiet: boolean,
  stderr: ProgressStream,
  signal: AbortSignal,
): Promise<number> {
  const { startQueueWorker } = await import('../queue/worker');
  const say = (line: string): void => void stderr.write(`mechstudio worker: ${line}\n`);
  const worker = await startQueueWorker({
    target: w.target,
    concurrency: w.concurrency,
    ...(quiet ? {} : { log: say }),
  });
  say(
    `taking jobs from ${w.target.redacted} (Redis ${worker.redisVersion}), ${w.concurrency} at a time; Ctrl-C stops after the running jobs`,
  );
  const stop = (): void => void worker.stop();
  process.on('SIGTERM', stop);
  signal.addEventListener('abort', stop);
  if (signal.aborted) stop();
  try {
    await worker.closed;
  } finally {
    process.off('SIGTERM', stop);
    signal.removeEventListener('abort', stop);
  }
  say('stopped');
  return 0;
}

const isMain =
  process.argv[1] !== undefined && /src-main[\\/]cli[\\/]main\.ts$|bin[\\/]mechstudio(\.js)?$/.test(process.argv[1]);
if (isMain || process.env.MECHSTUDIO_CLI_MAIN === '1') {
  // If the event loop ever drains before main() settles, exit non-zero with a reason, never a silent 0.
  let settled = false;
  process.exitCode = 1;
  process.on('exit', () => {
    if (!settled) process.stderr.write('mechstudio: internal error: the job ended without a result\n');
  });
  // A reader that stops early (`mechstudio ... | head`) closes our stdout: that ends the output, not in an error.
  const onPipeError = (e: NodeJS.ErrnoException): void => {
    if (e.code === 'EPIPE') {
      settled = true;
      process.exit(0);
    }
    throw e;
  };
  process.stdout.on('error', onPipeError);
  process.stderr.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
  process.on('uncaughtException', (e) => {
    process.stderr.write(`mechstudio: internal error: ${messageOf(e)}\n`);
    process.exit(1);
  });
  main(process.argv.slice(2)).then(
    (code) => {
      settled = true;
      process.exitCode = code;
    },
    (e: unknown) => {
      settled = true;
      process.stderr.write(`mechstudio: internal error: ${messageOf(e)}\n`);
      process.exitCode = 1;
    },
  );
}
