/**
 * Running a plan's request (in this process, on the pool or on a queue) and writing what it returns: files, the
 * summary, --json.
 */
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { invalid } from '../../src-shared/errors';
import { type JobRequest, type JobResult } from '../../src-shared/protocol/index';
import { parseDomainSpecText } from '../../src-shared/grammar/domain-spec';
import { NO_BOUND_YET, isBound } from '../../src-shared/charts/lp-words';
import type { JobRunner } from '../dispatcher/job-runner';
import { parseQueueUrl, queueUrlFrom, type QueueTarget } from '../queue/connection';
import { checkDirTarget, checkWriteTarget, prepareWrite, publishTemp, writeFileAtomic } from '../fs/safe-fs';
import { loadProject } from '../project/project-file';
import { resolveProjectFiles } from '../project/resolve-files';
import { type RunSummary } from '../project/run-project';
import type { ReleaseExtras } from './release-log';
import { Flags, type ParsedArgs } from './args';
import { parseDecimal, type PointsPrior } from '../fs/inputs';
import { jsonFor, printMatrixRule, readable } from './output';
import { type ProgressStream } from './progress';
import { exitCodeFor } from './usage';
import { type Plan } from './plan';

/** --queue URL (or MECHSTUDIO_QUEUE) of run / example; absent: the local pool. */
export function queueFlag(f: Flags): { queue?: QueueTarget } {
  const url = queueUrlFrom(f.str('queue'), process.env, false);
  return url === null ? {} : { queue: parseQueueUrl(url) };
}

/** Read and validate a project and resolve its csv: files (relative to the project file). */
export function readProject(path: string, out: string): NonNullable<Plan['project']> {
  const project = loadProject(path);
  const baseDir = dirname(path);
  return { project, resolved: resolveProjectFiles(project, baseDir), baseDir, out };
}

/** --out FILE.csv: refused at once unless it is new or a regular file. */
export function outFile(out: string | undefined): { outFile?: string } {
  if (out === undefined) return {};
  if (out === '') invalid('--out needs a file name (e.g. --out mech.csv)');
  const abs = resolve(out);
  checkWriteTarget(abs, '--out file');
  return { outFile: abs };
}

/** --out DIR of run / example: must be (or become) a directory; checked before any job starts. */
export function outDir(out: string): string {
  if (out === '') invalid('--out needs a directory name (e.g. --out results)');
  return resolve(out);
}

/** The --json `pointsPrior` object: how the prior was made from points. */
function pointsPriorJson(pp: PointsPrior): Record<string, unknown> {
  const g = pp.grid;
  return {
    file: pp.file,
    domain: pp.domain,
    rows: g.rows,
    cols: g.cols,
    cellKm: g.cellKm,
    smoothing: g.smoothing,
    inside: g.inside,
    outside: g.outside,
    outsideLines: g.outsideLines,
    projection: g.projection
      ? {
          kind: g.projection.kind,
          lat0: g.projection.lat0,
          lon0: g.projection.lon0,
          maxRelativeError: g.projection.maxRelativeError,
        }
      : null,
    /** Point counts and the prior per cell (row-major, row 0 = north) when the grid has at most 10^4 cells. */
    ...(g.rows * g.cols <= 10_000 ? { counts: Array.from(g.counts), prior: Array.from(g.prior) } : {}),
  };
}

function runSummaryJson(s: RunSummary): Record<string, unknown> {
  return {
    name: s.name,
    out: s.out,
    files: s.files,
    mechanisms: s.items.filter((i) => i.group === 'mechanisms').length,
    analyses: s.items.filter((i) => i.group === 'analyses').length,
    failed: s.items.filter((i) => !i.ok).map((i) => ({ id: i.id, code: i.error!.code, message: i.error!.message })),
  };
}

function runSummaryText(s: RunSummary): string {
  const lines = [`${s.name}: ${s.items.length - s.failed} of ${s.items.length} items done, written to ${s.out}`];
  for (const i of s.items) {
    lines.push(
      `  ${i.ok ? 'ok    ' : 'FAILED'} ${i.group === 'mechanisms' ? 'mechanism' : i.type.padEnd(9)} ${i.id}${i.ok ? '' : `: ${i.error!.message}`}`,
    );
  }
  lines.push(`  summary: ${resolve(s.out, 'summary.md')}`);
  return lines.join('\n');
}

/** The stderr line after a Ctrl-C stop: what was written and how far from the optimum it may be. */
export function stoppedNote(result: JobResult): string {
  const lp = result.type === 'mechanism' ? result.lp : undefined;
  if (!lp) return 'stopped by Ctrl-C: the result below is complete';
  if (lp.stoppedBy !== 'stopped')
    return `the LP ended (${lp.stoppedBy}) before the stop took effect: the result below is complete`;
  const head = `stopped by Ctrl-C after ${lp.rounds} round${lp.rounds === 1 ? '' : 's'}: the mechanism written is private, its expected loss ${lp.objective.toPrecision(6)}`;
  if (!isBound(lp.lowerBound)) return `${head}; bound on the best possible: ${NO_BOUND_YET}`;
  return `${head} is within ${(lp.gap * 100).toPrecision(3)}% of the ${lp.model} model's optimum (certified lower bound ${lp.lowerBound.toPrecision(6)})`;
}

/**
 * --threads N (default 1 for a job, up to 4 for a project). More threads than the machine has cores only
 * share the cores (and each holds a worker's memory): capped to the cores, with a note among the plan's warnings.
 */
export function threadsFor(args: ParsedArgs, plan: Plan): number {
  const threadsFlag = args.flags.get('threads');
  const cores = availableParallelism();
  const t = typeof threadsFlag === 'string' ? parseDecimal(threadsFlag) : plan.project ? Math.min(cores, 4) : 1;
  if (t === null || !Number.isInteger(t) || t < 1 || t > 256)
    invalid(`--threads must be an integer from 1 to 256, got '${String(threadsFlag)}'`);
  if (t <= cores) return t;
  plan.warnings = [
    ...(plan.warnings ?? []),
    `note: --threads ${t} is more than this machine's ${cores} cores: using ${cores}`,
  ];
  return cores;
}

/**
 * Points up to which a job runs on the CLI's own thread (a worker thread and its copy of the engine cost ~0.2 s to
 * start).
 */
const IN_PROCESS_POINTS = 100;

/**
 * Points of a domain spec when the shared grammar shows them directly (lines, rings, cliques, counts, grids); else
 * Infinity.
 */
function specPoints(domain: unknown): number {
  const p = parseDomainSpecText(domain);
  if (!p.ok) return Infinity; // not a spec, or malformed: the pool's job reports it
  const d = p.spec;
  if (d.kind === 'line' || d.kind === 'ring' || d.kind === 'clique') return d.n;
  if (d.kind === 'count') return d.n + 1;
  if (d.kind === 'grid') return d.rows * d.cols;
  return Infinity;
}

/**
 * A small job needs no worker pool: a closed-form mechanism, a check, a measure or a regularity test on at most
 * IN_PROCESS_POINTS points (of the domain, the mechanism's domain, the channel's rows and outputs). LPs, sweeps,
 * projects, files streamed (apply) and everything larger go to the pool, where Ctrl-C can stop them at once.
 */
export function runsInProcess(req: JobRequest): boolean {
  if (req.type !== 'mechanism' && req.type !== 'check' && req.type !== 'measure' && req.type !== 'regular')
    return false;
  const sizes: number[] = [];
  if (req.type === 'mechanism') {
    if (req.kind === 'optimal' || req.out !== undefined) return false;
    sizes.push(specPoints(req.domain));
  } else if (req.type === 'regular') sizes.push(specPoints(req.domain));
  else {
    if (req.channelRef !== undefined) return false;
    if (req.domain !== undefined) sizes.push(specPoints(req.domain));
    if (req.mechanism) sizes.push(req.mechanism.kind === 'optimal' ? Infinity : specPoints(req.mechanism.domain));
    if (req.channel) sizes.push(req.channel.rows, req.channel.cols);
  }
  return sizes.length > 0 && sizes.every((n) => n <= IN_PROCESS_POINTS);
}

/**
 * Outputs refused at once (a device, FIFO, directory or /proc path), before any job; --out is written to a temp file
 * next to it (listed in tempFiles).
 */
export function prepareOutputs(plan: Plan, tempFiles: string[]): void {
  if (plan.project) checkDirTarget(plan.project.out, '--out directory');
  if (plan.outFile && plan.request) {
    const tmp = prepareWrite(plan.outFile, '--out file');
    tempFiles.push(tmp, `${tmp}.partial`);
    (plan.request as { out?: string }).out = tmp;
  }
}

/** run / example --queue URL: the queue's client, with a line when no worker is there yet. */
export async function connectQueue(target: QueueTarget, stderr: ProgressStream): Promise<JobRunner> {
  const { QueueClient } = await import('../queue/client');
  const client = await QueueClient.connect(target);
  try {
    if ((await client.workerCount()) === 0) {
      stderr.write(
        `mechstudio: no worker is connected to the queue at ${target.redacted} yet; the jobs wait until one starts (mechstudio worker --queue URL)\n`,
      );
    }
  } catch (e) {
    await client.close().catch(() => undefined); // not handed to main's cleanup yet
    throw e;
  }
  return client;
}

/**
 * A project run's summary on stdout; the exit status: 0, or one line on stderr and 2 when every failure is the input's
 * fault.
 */
export function projectOutcome(
  s: RunSummary,
  json: boolean,
  stdout: ProgressStream,
  fail: (code: string, message: string) => number,
): number {
  stdout.write((json ? JSON.stringify(runSummaryJson(s)) : runSummaryText(s)) + '\n');
  if (s.failed === 0) return 0;
  const failed = s.items.filter((i) => !i.ok);
  const first = failed[0]!;
  const code = failed.every((i) => exitCodeFor(i.error!.code) === 2) ? first.error!.code : 'internal';
  return fail(code, `${s.failed} of ${s.items.length} items failed (first: ${first.id}: ${first.error!.message})`);
}

/** The files a job's result goes to: the worker's temp CSV published under --out, compare's table and chart. */
export async function writeOutputs(plan: Plan, result: JobResult): Promise<void> {
  if (
    plan.outFile &&
    (result.type === 'mechanism' || result.type === 'capacity' || result.type === 'apply') &&
    result.csvPath
  ) {
    publishTemp(result.csvPath, plan.outFile, '--out file');
    result.csvPath = plan.outFile;
  }
  if (plan.compareOut && result.type === 'compare') {
    const { compareCsv, compareChart } = await import('../../src-shared/charts/compare-report');
    if (plan.compareOut.csv) writeFileAtomic(plan.compareOut.csv, compareCsv(result), '--out file');
    if (plan.compareOut.png) {
      const { renderChartPng } = await import('../charts/render-chart');
      writeFileAtomic(plan.compareOut.png, renderChartPng(compareChart(result)), '--png file');
    }
  }
}

/** The result on stdout: one JSON object, or the readable summary (with the points prior and the matrix rule). */
export function printResult(
  plan: Plan,
  req: JobRequest,
  result: JobResult,
  stdout: ProgressStream,
  extras?: ReleaseExtras | null,
): void {
  if (plan.json) {
    const o = { ...jsonFor(req, result), ...extras?.json };
    if (plan.pointsPrior) o.pointsPrior = pointsPriorJson(plan.pointsPrior);
    stdout.write(JSON.stringify(o) + '\n');
    return;
  }
  stdout.write(readable(req, result) + '\n');
  for (const l of extras?.text ?? []) stdout.write(l + '\n');
  if (plan.pointsPrior) stdout.write(`${plan.pointsPrior.summary}\n`);
  const rule = printMatrixRule(req, result, plan.print);
  if (rule) stdout.write(rule + '\n');
}
