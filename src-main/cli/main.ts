/**
 * `mechstudio`: the command line of SPEC §8. Every command builds a protocol
 * request and runs it through the same dispatcher (worker pool) as the app.
 * Output: a readable summary on stdout, or with --json one object with the
 * keys listed in docs/cli.md; progress on stderr (a bar on a TTY). Bad input
 * exits 2 with one line on stderr; Ctrl-C cancels the job and exits 130,
 * except for an optimal LP (kind optimal), where the first Ctrl-C stops the
 * solve and writes the best mechanism found so far with its certified gap
 * (exit 0), and a second one cancels.
 */
import { unlinkSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { MechError, invalid } from '../../src-shared/errors';
import {
  ApiError,
  isInputErrorCode,
  MAX_LP_THREADS,
  MAX_LP_TIME_LIMIT_SECONDS,
  mechanismKindSchema,
  type CompareMechanism,
  type ApplyRequest,
  type JobRequest,
  type MechanismSpec,
  type AuditRequest,
  type PriorInput,
  type JobResult,
  type Project,
} from '../../src-shared/protocol/index';
import { DOMAIN_FORMS, parseDomainSpecText } from '../../src-shared/grammar/domain-spec';
import { Dispatcher, isLpJob } from '../dispatcher/dispatcher';
import type { JobRunner } from '../dispatcher/job-runner';
import type { KeptChannel } from '../../src-worker/index';
import { QUEUE_PARTS } from '../dispatcher/fan-out';
import { parseQueueUrl, probeRedis, queueUrlFrom, type QueueTarget } from '../queue/connection';
import type { PricingFleet } from '../queue/pricing-master';
import { checkDirTarget, checkReadableFileSync, checkWriteTarget, prepareWrite, publishTemp, writeFileAtomic } from '../fs/safe-fs';
import { examplePath, listExamples } from '../project/examples';
import { loadProject } from '../project/project-file';
import { resolveProjectFiles } from '../project/resolve-files';
import { runProject, type RunSummary } from '../project/run-project';
import { parseArgs, Flags, type ParsedArgs } from './args';
import {
  domainPointsFromText,
  parseDecimal,
  parseLossArg,
  parsePointsPriorArg,
  parsePriorArg,
  type PointsPrior,
  readChannelCsv,
  resolveDomainArg,
} from '../fs/inputs';
import { jsonFor, printMatrixRule, readable } from './output';
import { ProgressReporter, type ProgressStream } from './progress';

/** The "Domains:" lines of the help, from the grammar's own list of forms (src-shared/grammar/domain-spec.ts). */
function domainFormsHelp(width = 110): string {
  const lines: string[] = [];
  let line = 'Domains:';
  for (const f of DOMAIN_FORMS) {
    if (line.length + 1 + f.form.length > width) (lines.push(line), (line = '        '));
    line += ` ${f.form}`;
  }
  return [...lines, line].join('\n');
}

export const USAGE = `Usage:
  mechstudio mechanism --domain D --epsilon E --kind K [--prior P] [--loss L] [--out FILE.csv] [--print] [--json]
                       kind optimal: [--lp-model exact|spanner|edges|auto] [--delta D] [--time-limit SECONDS] [--target-gap G]
                       [--queue redis://HOST:PORT[/DB]] (the LP's pricing rounds on the queue's workers; see README "Scaling out")
                       [--remap] (needs --prior and --loss: the outputs remapped to the best guesses; original vs remapped expected loss)
  mechstudio apply     (--channel C.csv [--domain D] | --domain D --epsilon E --kind K [--remap --prior P --loss L])
                       --input SECRETS.csv --out RELEASED.csv [--header yes|no] [--seed N (reproducible, NOT for release)] [--json]
                       (without --domain the channel's row labels are the secrets; line 1 is a header unless it is a secret)
  mechstudio audit     --samples FILE.csv --domain D --epsilon E [--confidence C (0.99)] [--detect E1,E2,...] [--json]
                       (a claim eps per unit of distance tested on samples secret,released: refuted or not-refuted,
                       a lower confidence bound on the effective eps, the witness pair and event; point samples
                       secret_x,secret_y,released_x,released_y with --prior points:FILE.csv; docs/audit.md)
  mechstudio compare   --domain D --epsilon E --kinds K1,K2+remap,... [--prior P] [--loss L] [--focus CELL]
                       [--out TABLE.csv] [--png CHART.png] [--json]   (one row per mechanism: expected km with and
                       without remap, P(true cell), leakage bits, effective eps per km, % vs planar Laplace)
  mechstudio measure   --channel FILE.csv [--domain D --epsilon E] [--prior P] [--loss L] [--json]
  mechstudio check     --channel FILE.csv --domain D --epsilon E [--json]
  mechstudio capacity  --domain D --epsilon E [--out FILE.csv] [--json]
  mechstudio regular   --domain D --epsilon E --prior P [--json]
  mechstudio threshold --domain D [--from A] [--to B] [--step S] [--json]
  mechstudio vertices  --domain D --epsilon E [--kernels] [--json]
  mechstudio run       PROJECT.json [--out DIR] [--queue URL] [--json]
  mechstudio example   NAME [--out DIR] [--queue URL] [--json]      (mechstudio example --list)
  mechstudio worker    --queue redis://HOST:PORT[/DB] [--concurrency N]
                       runs queued jobs (run --queue URL sends a project's items to the queue; see README "Scaling out")
${domainFormsHelp()}
Kinds: tg rr exponential laplace planar-laplace tight symmetric optimal
Priors: uniform | product:p1,p2,... | csv:FILE | p1,p2,... | points:FILE.csv[:cell=KM][:box=x0,y0,x1,y1][:smooth=A]
        (points: header x,y in km or lat,lon; the grid is the domain unless --domain is given)
Losses: bin nib dist dist2 csv:FILE
Common: --threads N (worker threads, at most the cores), --quiet (no progress)
Queue URL: --queue, else the environment's MECHSTUDIO_QUEUE (worker: also REDIS_URL); credentials in it are never printed`;

/** Exit status for an error code: 2 for bad input, 130 for cancel, 1 otherwise. */
export function exitCodeFor(code: string): number {
  if (isInputErrorCode(code)) return 2;
  if (code === 'cancelled') return 130;
  return 1;
}

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

interface Plan {
  request?: JobRequest;
  /** --out FILE.csv of mechanism / capacity: the final path (the worker writes a temp file next to it). */
  outFile?: string;
  /** Project run (run / example). */
  /** A project (run / example), read, validated and its csv: files resolved before any worker starts. */
  project?: { project: Project; resolved: Project; baseDir: string; out: string };
  /** run / example --queue URL: the project's items go to this queue instead of the local pool. */
  queue?: QueueTarget;
  /** mechanism --kind optimal --queue URL: the LP's pricing rounds run on this queue's workers (the master here). */
  pricingQueue?: QueueTarget;
  /** `mechstudio worker`: serve the queue. */
  worker?: { target: QueueTarget; concurrency: number };
  json: boolean;
  print: boolean;
  /** Warning lines for stderr before the job runs (printed even with --quiet). */
  warnings?: string[];
  /** compare: where to write the table (CSV) and the chart (PNG). */
  compareOut?: { csv?: string; png?: string };
  /** A prior made from points: reported in --json. */
  pointsPrior?: PointsPrior;
  /** A channel CSV too large to carry inline: put in the dispatcher's channel store, the request names it by channelRef. */
  kept?: KeptChannel;
}

/**
 * --domain and --prior of a construction, with points:FILE priors:
 * the points grid is the domain when --domain is not given; when it is, it
 * must have the grid's rows and columns.
 */
function domainAndPrior(
  f: Flags,
  required: boolean,
  onProgress?: ParsedArgs['onReadProgress'],
): { domain: string | undefined; prior?: PriorInput; points?: PointsPrior } {
  const priorText = f.str('prior');
  const d = f.str('domain');
  if (priorText !== undefined && priorText.trim().startsWith('points:')) {
    const pp = parsePointsPriorArg(priorText, process.cwd(), onProgress);
    let domain = pp.domain;
    if (d !== undefined) {
      domain = resolveDomainArg(d);
      const g = parseDomainSpecText(domain);
      if (!g.ok) invalid(g.error);
      if (g.spec.kind !== 'grid' || g.spec.rows !== pp.grid.rows || g.spec.cols !== pp.grid.cols) {
        invalid(
          `--domain ${shortText(domain)} does not match the points grid ${pp.domain} (${pp.grid.rows} x ${pp.grid.cols} cells of ${pp.grid.cellKm} km); omit --domain to use the grid`,
        );
      }
    }
    return { domain, prior: pp.prior, points: pp };
  }
  if (d === undefined && required) f.need('domain', 'line:6');
  const domain = d === undefined ? undefined : resolveDomainArg(d);
  if (priorText === undefined) return { domain };
  return { domain, prior: parsePriorArg(priorText, undefined, domain === undefined ? undefined : domainPointsFromText(domain)) };
}

function shortText(s: string): string {
  return s.length > 60 ? `${s.slice(0, 60)}...` : s;
}

/** Lines to print about a points prior. */
function pointsLines(pp: PointsPrior | undefined): { warnings?: string[] } {
  if (!pp) return {};
  return pp.outsideWarning ? { warnings: [`warning: ${pp.outsideWarning}`] } : {};
}

/** --remap needs --prior and --loss (it minimises the expected loss under the prior). */
function remapFlag(f: Flags): boolean {
  if (!f.bool('remap')) return false;
  const missing = ['prior', 'loss'].filter((k) => !f.has(k));
  if (missing.length)
    invalid(
      `--remap needs --prior and --loss (the remap replaces each output by the guess of least expected loss under the prior); missing ${missing.map((k) => `--${k}`).join(' and ')}`,
    );
  return true;
}

/** Largest secrets CSV for apply (bytes; streamed, never held). */
const MAX_SECRETS_CSV_BYTES = 64 * 1024 ** 3;

/** Options of the optimal LP (kind optimal): --gap is the issue's name for --target-gap. */
/** --kinds of compare: a comma list of kinds, each optionally followed by +remap. */
function parseCompareKinds(text: string): CompareMechanism[] {
  const items = text.split(',').map((x) => x.trim());
  if (items.length > 8) invalid(`--kinds takes at most 8 mechanisms, got ${items.length}`);
  return items.map((item) => {
    const m = /^([a-z-]+)(\+remap)?$/.exec(item);
    const kind = m ? mechanismKindSchema.safeParse(m[1]) : null;
    if (!m || !kind?.success)
      invalid(
        `--kinds: '${item.length > 40 ? `${item.slice(0, 40)}...` : item}' is not a mechanism kind (${mechanismKindSchema.options.join(', ')}), optionally followed by +remap`,
      );
    return { kind: kind.data, ...(m[2] ? { remap: true } : {}) };
  });
}

const LP_FLAGS = ['lp-model', 'delta', 'time-limit', 'target-gap', 'gap'] as const;
const LP_MODEL_NAMES = ['exact', 'spanner', 'edges', 'auto'] as const;

function lpFlags(f: Flags, kind: string): { lpModel?: (typeof LP_MODEL_NAMES)[number]; delta?: number; timeLimitSeconds?: number; targetGap?: number } {
  const given = LP_FLAGS.filter((k) => f.has(k));
  if (given.length === 0) return {};
  if (kind !== 'optimal') invalid(`--${given[0]} applies only to --kind optimal`);
  if (f.has('gap') && f.has('target-gap')) invalid('give one of --target-gap and --gap (the same option)');
  const out: ReturnType<typeof lpFlags> = {};
  const model = f.str('lp-model');
  if (model !== undefined) {
    if (!(LP_MODEL_NAMES as readonly string[]).includes(model))
      invalid(`--lp-model must be one of ${LP_MODEL_NAMES.join(', ')}, got '${model.length > 40 ? `${model.slice(0, 40)}...` : model}'`);
    out.lpModel = model as (typeof LP_MODEL_NAMES)[number];
  }
  const delta = f.num('delta');
  if (delta !== undefined) {
    if (!(delta >= 1 && delta <= 10)) invalid(`--delta (spanner dilation) must be a number from 1 to 10, got ${delta}`);
    out.delta = delta;
  }
  const t = f.num('time-limit');
  if (t !== undefined) {
    if (!(t > 0 && t <= MAX_LP_TIME_LIMIT_SECONDS))
      invalid(`--time-limit must be a number of seconds > 0 and at most ${MAX_LP_TIME_LIMIT_SECONDS} (a week), got ${t}`);
    out.timeLimitSeconds = t;
  }
  const gapName = f.has('gap') ? 'gap' : 'target-gap';
  const g = f.num(gapName);
  if (g !== undefined) {
    if (!(g > 0 && g < 1)) invalid(`--${gapName} must be a relative gap > 0 and < 1 (e.g. 0.01 for 1%), got ${g}`);
    out.targetGap = g;
  }
  return out;
}

function noPositional(args: ParsedArgs): void {
  if (args.positional.length) throw new MechError('invalid-input', `unexpected argument '${args.positional[0]}' for '${args.command}'`);
}

/** `mechstudio mechanism`: its flags checked, its job or project planned. */
function planMechanism(args: ParsedArgs): Plan {
  const f = new Flags(args, ['domain', 'epsilon', 'kind', 'prior', 'loss', 'remap', 'out', 'json', 'print', 'quiet', 'queue', ...LP_FLAGS]);
  noPositional(args);
  const remap = remapFlag(f);
  const dp = domainAndPrior(f, true, args.onReadProgress);
  const req: JobRequest = {
    type: 'mechanism',
    domain: dp.domain!,
    epsilon: f.needPositive('epsilon', '0.693'),
    kind: f.need('kind', 'tg') as 'tg',
  };
  Object.assign(req, lpFlags(f, req.kind));
  // --threads N also prices the optimal LP on N threads (one HiGHS instance each; the same optimum); without it the
  // engine uses every core on large problems (lp/optimal-mechanism.ts defaultLpThreads).
  const threadsFlag = args.flags.get('threads');
  const lpThreads = typeof threadsFlag === 'string' ? parseDecimal(threadsFlag) : null;
  if (req.kind === 'optimal' && lpThreads !== null && Number.isInteger(lpThreads) && lpThreads >= 1)
    req.lpThreads = Math.min(lpThreads, MAX_LP_THREADS, availableParallelism());
  if (dp.prior !== undefined) req.prior = dp.prior;
  const loss = f.str('loss');
  if (loss !== undefined) req.loss = parseLossArg(loss);
  if (remap) req.remap = true;
  const out = f.str('out');
  // Only the flag (not MECHSTUDIO_QUEUE): a queue set for project runs does not move a single LP's pricing.
  const queue = f.str('queue');
  if (queue !== undefined && req.kind !== 'optimal') invalid(`--queue applies only to --kind optimal (its pricing rounds run on the queue's workers)`);
  return {
    request: req,
    ...(queue !== undefined ? { pricingQueue: parseQueueUrl(queue) } : {}),
    ...outFile(out),
    json: f.bool('json'),
    print: f.bool('print'),
    ...pointsLines(dp.points),
    ...(dp.points ? { pointsPrior: dp.points } : {}),
  };
}

/** `mechstudio apply`: its flags checked, its job or project planned. */
async function planApply(args: ParsedArgs, signal: AbortSignal): Promise<Plan> {
  const f = new Flags(args, ['channel', 'domain', 'epsilon', 'kind', 'prior', 'loss', 'remap', 'input', 'out', 'seed', 'header', 'json', 'quiet', ...LP_FLAGS]);
  noPositional(args);
  const input = resolve(f.need('input', 'secrets.csv'));
  checkReadableFileSync(input, 'secrets CSV', MAX_SECRETS_CSV_BYTES);
  const outText = f.need('out', 'released.csv');
  let seed: number | undefined;
  if (f.has('seed')) {
    const v = f.num('seed');
    if (v === undefined || !Number.isInteger(v) || v < 0 || v > 0xffffffff)
      invalid(`--seed must be an integer from 0 to 4294967295, got '${String(args.flags.get('seed'))}'`);
    seed = v;
  }
  const header = f.str('header');
  if (header !== undefined && header !== 'yes' && header !== 'no')
    invalid(`--header must be yes or no (whether line 1 of the secrets CSV is a header), got '${header}'`);
  let req: ApplyRequest;
  let dp: ReturnType<typeof domainAndPrior>;
  let kept: KeptChannel | undefined;
  if (f.has('channel')) {
    const construction = ['epsilon', 'kind', 'loss', 'remap', ...LP_FLAGS].filter((k) => f.has(k));
    if (construction.length) invalid(`apply takes --channel or the construction flags, not both (got --channel and --${construction[0]})`);
    // Without --domain the secrets are the channel's row labels.
    dp = domainAndPrior(f, false, args.onReadProgress);
    const channelPath = resolve(f.need('channel', 'mech.csv'));
    const c = await readChannelCsv(channelPath, signal, dp.domain === undefined ? undefined : domainPointsFromText(dp.domain));
    if (c.kept && dp.domain === undefined)
      invalid(`the channel in ${channelPath} is too large to carry its labels as the secrets: give --domain (its ${c.kept.rows} points are the rows)`);
    kept = c.kept;
    req = { type: 'apply', ...(c.channel ? { channel: c.channel } : {}), ...(dp.domain !== undefined ? { domain: dp.domain } : {}), input, out: outText };
  } else {
    const remap = remapFlag(f);
    dp = domainAndPrior(f, true, args.onReadProgress);
    const spec: MechanismSpec = { domain: dp.domain!, epsilon: f.needPositive('epsilon', '0.693'), kind: f.need('kind', 'planar-laplace') as 'tg' };
    Object.assign(spec, lpFlags(f, spec.kind));
    if (dp.prior !== undefined) spec.prior = dp.prior;
    const loss = f.str('loss');
    if (loss !== undefined) spec.loss = parseLossArg(loss);
    if (remap) spec.remap = true;
    req = { type: 'apply', mechanism: spec, input, out: outText };
  }
  if (seed !== undefined) req.seed = seed;
  if (header !== undefined) req.header = header;
  if (dp.points) req.points = dp.points.binning;
  const lines = pointsLines(dp.points);
  if (seed !== undefined)
    lines.warnings = [...(lines.warnings ?? []), `warning: --seed ${seed}: a reproducible stream for tests, NOT for release (the output's first line says so)`];
  return {
    request: req,
    ...outFile(outText),
    json: f.bool('json'),
    print: false,
    ...lines,
    ...(dp.points ? { pointsPrior: dp.points } : {}),
    ...(kept ? { kept } : {}),
  };
}

/** `mechstudio audit`: a claim (--epsilon per unit of distance) tested on samples secret,released. */
function planAudit(args: ParsedArgs): Plan {
  const f = new Flags(args, ['samples', 'domain', 'epsilon', 'confidence', 'prior', 'detect', 'json', 'quiet']);
  noPositional(args);
  const input = resolve(f.need('samples', 'log.csv'));
  checkReadableFileSync(input, 'samples CSV', MAX_SECRETS_CSV_BYTES);
  // --prior points:FILE gives the grid point samples are binned on (the domain unless --domain is given).
  const prior = args.flags.get('prior');
  if (typeof prior === 'string' && !prior.trim().startsWith('points:'))
    invalid(`--prior in audit gives the grid of point samples only (points:FILE.csv[:cell=KM]...), got '${shortText(prior)}'`);
  const dp = domainAndPrior(f, true);
  const req: AuditRequest = { type: 'audit', domain: dp.domain!, epsilon: f.needPositive('epsilon', '1.386'), input };
  const c = f.num('confidence');
  if (c !== undefined) {
    if (!(c > 0 && c < 1)) invalid(`--confidence must be a number strictly between 0 and 1 (e.g. 0.99), got ${c}`);
    req.confidence = c;
  }
  const detect = f.str('detect');
  if (detect !== undefined) {
    req.detect = detect.split(',').map((t) => {
      const v = parseDecimal(t.trim());
      if (v === null || !(v > 0)) invalid(`--detect takes a comma list of eps values > 0 (violation sizes), got '${shortText(t)}'`);
      return v;
    });
  }
  if (dp.points) req.points = dp.points.binning;
  return { request: req, json: f.bool('json'), print: false, ...pointsLines(dp.points) };
}

/** `mechstudio compare`: its flags checked, its job or project planned. */
function planCompare(args: ParsedArgs): Plan {
  const f = new Flags(args, ['domain', 'epsilon', 'kinds', 'prior', 'loss', 'focus', 'out', 'png', 'json', 'quiet']);
  noPositional(args);
  const dp = domainAndPrior(f, true, args.onReadProgress);
  const mechanisms = parseCompareKinds(f.need('kinds', 'planar-laplace,planar-laplace+remap,tight'));
  const req: JobRequest = { type: 'compare', domain: dp.domain!, epsilon: f.needPositive('epsilon', '1'), mechanisms };
  if (dp.prior !== undefined) req.prior = dp.prior;
  const loss = f.str('loss');
  if (loss !== undefined) req.loss = parseLossArg(loss);
  if (f.has('focus')) {
    const v = f.num('focus');
    if (v === undefined || !Number.isInteger(v) || v < 0) invalid(`--focus must be a cell index (an integer >= 0), got '${String(args.flags.get('focus'))}'`);
    req.focus = v;
  }
  const target = (name: 'out' | 'png', example: string): string | undefined => {
    const v = f.str(name);
    if (v === undefined) return undefined;
    if (v === '') invalid(`--${name} needs a file name (e.g. --${name} ${example})`);
    const abs = resolve(v);
    checkWriteTarget(abs, `--${name} file`);
    return abs;
  };
  const csv = target('out', 'compare.csv');
  const png = target('png', 'compare.png');
  return {
    request: req,
    json: f.bool('json'),
    print: false,
    compareOut: { ...(csv ? { csv } : {}), ...(png ? { png } : {}) },
    ...pointsLines(dp.points),
    ...(dp.points ? { pointsPrior: dp.points } : {}),
  };
}

/** `mechstudio measure`: its flags checked, its job or project planned. */
async function planMeasure(args: ParsedArgs, signal: AbortSignal): Promise<Plan> {
  const f = new Flags(args, ['channel', 'domain', 'epsilon', 'prior', 'loss', 'json', 'quiet']);
  noPositional(args);
  const channelPath = resolve(f.need('channel', 'mech.csv'));
  const d = f.str('domain');
  const domain = d === undefined ? undefined : resolveDomainArg(d);
  const e = f.positive('epsilon');
  if (e !== undefined && domain === undefined) throw new MechError('invalid-input', '--epsilon needs --domain (the metric the epsilon scales)');
  const prior = f.str('prior');
  const loss = f.str('loss');
  const c = await readChannelCsv(channelPath, signal, domain === undefined ? undefined : domainPointsFromText(domain));
  const req: JobRequest = { type: 'measure', ...(c.channel ? { channel: c.channel } : {}) };
  const rows = c.channel?.rows ?? c.kept!.rows;
  if (domain !== undefined) req.domain = domain;
  if (e !== undefined) req.epsilon = e;
  let pp: PointsPrior | undefined;
  if (prior !== undefined && prior.trim().startsWith('points:')) {
    pp = parsePointsPriorArg(prior, process.cwd(), args.onReadProgress);
    if (rows !== pp.grid.rows * pp.grid.cols) invalid(`the channel has ${rows} rows but the points grid ${pp.domain} has ${pp.grid.rows * pp.grid.cols} cells`);
    req.prior = pp.prior;
  } else if (prior !== undefined) req.prior = parsePriorArg(prior);
  if (loss !== undefined) req.loss = parseLossArg(loss);
  return { request: req, json: f.bool('json'), print: false, ...pointsLines(pp), ...(pp ? { pointsPrior: pp } : {}), ...(c.kept ? { kept: c.kept } : {}) };
}

/** `mechstudio check`: its flags checked, its job or project planned. */
async function planCheck(args: ParsedArgs, signal: AbortSignal): Promise<Plan> {
  const f = new Flags(args, ['channel', 'domain', 'epsilon', 'json', 'quiet']);
  noPositional(args);
  const channelPath = resolve(f.need('channel', 'mech.csv'));
  const domain = resolveDomainArg(f.need('domain', 'line:6'));
  const epsilon = f.needPositive('epsilon', '0.693');
  // the domain's size first: a channel with more rows is refused at its first extra row
  const c = await readChannelCsv(channelPath, signal, domainPointsFromText(domain));
  const req: JobRequest = { type: 'check', ...(c.channel ? { channel: c.channel } : {}), domain, epsilon };
  return { request: req, json: f.bool('json'), print: false, ...(c.kept ? { kept: c.kept } : {}) };
}

/** `mechstudio capacity`: its flags checked, its job or project planned. */
function planCapacity(args: ParsedArgs): Plan {
  const f = new Flags(args, ['domain', 'epsilon', 'out', 'json', 'quiet']);
  noPositional(args);
  const req: JobRequest = { type: 'capacity', domain: resolveDomainArg(f.need('domain', 'line:6')), epsilon: f.needPositive('epsilon', '0.693') };
  const out = f.str('out');
  return { request: req, ...outFile(out), json: f.bool('json'), print: false };
}

/** `mechstudio regular`: its flags checked, its job or project planned. */
function planRegular(args: ParsedArgs): Plan {
  const f = new Flags(args, ['domain', 'epsilon', 'prior', 'json', 'quiet']);
  noPositional(args);
  const domain = resolveDomainArg(f.need('domain', 'line:6'));
  const epsilon = f.needPositive('epsilon', '0.693');
  const req: JobRequest = { type: 'regular', domain, epsilon, prior: parsePriorArg(f.need('prior', 'uniform'), undefined, domainPointsFromText(domain)) };
  return { request: req, json: f.bool('json'), print: false };
}

/** `mechstudio threshold`: its flags checked, its job or project planned. */
function planThreshold(args: ParsedArgs): Plan {
  const f = new Flags(args, ['domain', 'from', 'to', 'step', 'json', 'quiet']);
  noPositional(args);
  const req: JobRequest = { type: 'threshold', domain: resolveDomainArg(f.need('domain', 'line:6')) };
  const from = f.positive('from');
  const to = f.positive('to');
  const step = f.positive('step');
  if (from !== undefined) req.from = from;
  if (to !== undefined) req.to = to;
  if (step !== undefined) req.step = step;
  return { request: req, json: f.bool('json'), print: false };
}

/** `mechstudio vertices`: its flags checked, its job or project planned. */
function planVertices(args: ParsedArgs): Plan {
  const f = new Flags(args, ['domain', 'epsilon', 'kernels', 'json', 'quiet']);
  noPositional(args);
  const req: JobRequest = {
    type: 'vertices',
    domain: resolveDomainArg(f.need('domain', 'line:3')),
    epsilon: f.needPositive('epsilon', '0.693'),
    kernels: f.bool('kernels'),
  };
  return { request: req, json: f.bool('json'), print: false };
}

/** `mechstudio run`: its flags checked, its job or project planned. */
function planRun(args: ParsedArgs): Plan {
  const f = new Flags(args, ['out', 'json', 'quiet', 'queue']);
  if (args.positional.length !== 1) throw new MechError('invalid-input', 'run needs exactly one PROJECT.json (e.g. mechstudio run voting.json --out results)');
  const path = resolve(args.positional[0]!);
  const out = outDir(f.str('out') ?? 'mechstudio-out');
  return { project: readProject(path, out), ...queueFlag(f), json: f.bool('json'), print: false };
}

/** `mechstudio worker`: its flags checked, its job or project planned. */
function planWorker(args: ParsedArgs): Plan {
  const f = new Flags(args, ['queue', 'concurrency', 'quiet']);
  noPositional(args);
  const url = queueUrlFrom(f.str('queue'), process.env, true);
  if (url === null) invalid('worker needs --queue redis://HOST:PORT[/DB] (or MECHSTUDIO_QUEUE / REDIS_URL in the environment)');
  const c = f.num('concurrency');
  if (c !== undefined && !(Number.isInteger(c) && c >= 1 && c <= 256)) invalid(`--concurrency must be an integer from 1 to 256, got ${c}`);
  return { worker: { target: parseQueueUrl(url), concurrency: c ?? availableParallelism() }, json: false, print: false };
}

/** `mechstudio example`: its flags checked, its job or project planned. */
function planExample(args: ParsedArgs): Plan {
  const f = new Flags(args, ['out', 'json', 'quiet', 'list', 'queue']);
  if (args.positional.length !== 1) {
    const names = listExamples().map((e) => e.name);
    throw new MechError('invalid-input', `example needs one NAME (available: ${names.join(', ')})`);
  }
  const name = args.positional[0]!;
  const path = examplePath(name);
  const out = outDir(f.str('out') ?? `mechstudio-example-${name}`);
  return { project: readProject(path, out), ...queueFlag(f), json: f.bool('json'), print: false };
}

/** Each command's planner. */
const PLANNERS: Record<string, (args: ParsedArgs, signal: AbortSignal) => Plan | Promise<Plan>> = {
  mechanism: planMechanism,
  apply: planApply,
  audit: planAudit,
  compare: planCompare,
  measure: planMeasure,
  check: planCheck,
  capacity: planCapacity,
  regular: planRegular,
  threshold: planThreshold,
  vertices: planVertices,
  run: planRun,
  worker: planWorker,
  example: planExample,
};

async function buildPlan(args: ParsedArgs, signal: AbortSignal): Promise<Plan> {
  const c = args.command;
  const planner = Object.prototype.hasOwnProperty.call(PLANNERS, c) ? PLANNERS[c] : undefined;
  if (!planner)
    throw new MechError(
      'invalid-input',
      `unknown command '${c}' (mechanism, apply, audit, measure, check, capacity, regular, threshold, vertices, run, example, worker; see mechstudio help)`,
    );
  return planner(args, signal);
}

/** --queue URL (or MECHSTUDIO_QUEUE) of run / example; absent: the local pool. */
function queueFlag(f: Flags): { queue?: QueueTarget } {
  const url = queueUrlFrom(f.str('queue'), process.env, false);
  return url === null ? {} : { queue: parseQueueUrl(url) };
}

/** Read and validate a project and resolve its csv: files (relative to the project file). */
function readProject(path: string, out: string): NonNullable<Plan['project']> {
  const project = loadProject(path);
  const baseDir = dirname(path);
  return { project, resolved: resolveProjectFiles(project, baseDir), baseDir, out };
}

/** --out FILE.csv: refused at once unless it is new or a regular file. */
function outFile(out: string | undefined): { outFile?: string } {
  if (out === undefined) return {};
  if (out === '') invalid('--out needs a file name (e.g. --out mech.csv)');
  const abs = resolve(out);
  checkWriteTarget(abs, '--out file');
  return { outFile: abs };
}

/** --out DIR of run / example: must be (or become) a directory; checked before any job starts. */
function outDir(out: string): string {
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
      ? { kind: g.projection.kind, lat0: g.projection.lat0, lon0: g.projection.lon0, maxRelativeError: g.projection.maxRelativeError }
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
    lines.push(`  ${i.ok ? 'ok    ' : 'FAILED'} ${i.group === 'mechanisms' ? 'mechanism' : i.type.padEnd(9)} ${i.id}${i.ok ? '' : `: ${i.error!.message}`}`);
  }
  lines.push(`  summary: ${resolve(s.out, 'summary.md')}`);
  return lines.join('\n');
}

/** The stderr line after a Ctrl-C stop: what was written and how far from the optimum it may be. */
function stoppedNote(result: JobResult): string {
  const lp = result.type === 'mechanism' ? result.lp : undefined;
  if (!lp) return 'stopped by Ctrl-C: the result below is complete';
  if (lp.stoppedBy !== 'stopped') return `the LP ended (${lp.stoppedBy}) before the stop took effect: the result below is complete`;
  return `stopped by Ctrl-C after ${lp.rounds} rounds: the mechanism written is private, its expected loss ${lp.objective.toPrecision(6)} is within ${(lp.gap * 100).toPrecision(3)}% of the ${lp.model} model's optimum (certified lower bound ${lp.lowerBound.toPrecision(6)})`;
}

/**
 * --threads N (default 1 for a job, up to 4 for a project). More threads than the machine has cores only
 * share the cores (and each holds a worker's memory): capped to the cores, with a note among the plan's warnings.
 */
function threadsFor(args: ParsedArgs, plan: Plan): number {
  const threadsFlag = args.flags.get('threads');
  const cores = availableParallelism();
  const t = typeof threadsFlag === 'string' ? parseDecimal(threadsFlag) : plan.project ? Math.min(cores, 4) : 1;
  if (t === null || !Number.isInteger(t) || t < 1 || t > 256) invalid(`--threads must be an integer from 1 to 256, got '${String(threadsFlag)}'`);
  if (t <= cores) return t;
  plan.warnings = [...(plan.warnings ?? []), `note: --threads ${t} is more than this machine's ${cores} cores: using ${cores}`];
  return cores;
}

/** Points up to which a job runs on the CLI's own thread (a worker thread and its copy of the engine cost ~0.2 s to start). */
const IN_PROCESS_POINTS = 100;

/** Points of a domain spec when the shared grammar shows them directly (lines, rings, cliques, counts, grids); else Infinity. */
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
  if (req.type !== 'mechanism' && req.type !== 'check' && req.type !== 'measure' && req.type !== 'regular') return false;
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

/** Outputs refused at once (a device, FIFO, directory or /proc path), before any job; --out is written to a temp file next to it (listed in tempFiles). */
function prepareOutputs(plan: Plan, tempFiles: string[]): void {
  if (plan.project) checkDirTarget(plan.project.out, '--out directory');
  if (plan.outFile && plan.request) {
    const tmp = prepareWrite(plan.outFile, '--out file');
    tempFiles.push(tmp, `${tmp}.partial`);
    (plan.request as { out?: string }).out = tmp;
  }
}

/** run / example --queue URL: the queue's client, with a line when no worker is there yet. */
async function connectQueue(target: QueueTarget, stderr: ProgressStream): Promise<JobRunner> {
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

/** A project run's summary on stdout; the exit status: 0, or one line on stderr and 2 when every failure is the input's fault. */
function projectOutcome(s: RunSummary, json: boolean, stdout: ProgressStream, fail: (code: string, message: string) => number): number {
  stdout.write((json ? JSON.stringify(runSummaryJson(s)) : runSummaryText(s)) + '\n');
  if (s.failed === 0) return 0;
  const failed = s.items.filter((i) => !i.ok);
  const first = failed[0]!;
  const code = failed.every((i) => exitCodeFor(i.error!.code) === 2) ? first.error!.code : 'internal';
  return fail(code, `${s.failed} of ${s.items.length} items failed (first: ${first.id}: ${first.error!.message})`);
}

/** The files a job's result goes to: the worker's temp CSV published under --out, compare's table and chart. */
async function writeOutputs(plan: Plan, result: JobResult): Promise<void> {
  if (plan.outFile && (result.type === 'mechanism' || result.type === 'capacity' || result.type === 'apply') && result.csvPath) {
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
function printResult(plan: Plan, req: JobRequest, result: JobResult, stdout: ProgressStream): void {
  if (plan.json) {
    const o = jsonFor(req, result);
    if (plan.pointsPrior) o.pointsPrior = pointsPriorJson(plan.pointsPrior);
    stdout.write(JSON.stringify(o) + '\n');
    return;
  }
  stdout.write(readable(req, result) + '\n');
  if (plan.pointsPrior) stdout.write(`${plan.pointsPrior.summary}\n`);
  const rule = printMatrixRule(req, result, plan.print);
  if (rule) stdout.write(rule + '\n');
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
    if (e instanceof MechError || e instanceof ApiError) return fail(e.code, e.code === 'cancelled' ? 'cancelled' : e.message);
    const m = e instanceof Error ? e.message : String(e);
    return fail('internal', m.startsWith('internal error') ? m : `internal error: ${m}`);
  };
  const controller = new AbortController();
  // An optimal LP: the first Ctrl-C stops it with the best mechanism so far (stopper), the next cancels.
  const stopper = new AbortController();
  let lpJob = false;
  let interrupted = 0;
  const onSigint = (): void => {
    interrupted++;
    progress?.clear();
    if (lpJob && interrupted === 1) {
      stderr.write('mechstudio: stopping the LP: the best mechanism found so far will be written with its certified gap (Ctrl-C again to cancel)\n');
      stopper.abort();
      return;
    }
    if (interrupted > (lpJob ? 2 : 1)) process.exit(130);
    stderr.write('mechstudio: cancelling (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
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
      // an LP from the start: a Ctrl-C while its inputs are read already means "stop with the best" (the job then stops at once)
      lpJob = args.command === 'mechanism' && args.flags.get('kind') === 'optimal';
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
    dispatcher ??= opts.dispatcher ?? new Dispatcher({ threads, ...(plan.project ? {} : { inProcess: runsInProcess }) });
    if (plan.project) {
      const s = await runPlannedProject(plan, plan.project, dispatcher, controller.signal, pr);
      return projectOutcome(s, plan.json, stdout, fail);
    }
    const req = plan.request!;
    if (plan.kept) nameKeptChannel(req, plan.kept, dispatcher);
    lpJob = isLpJob(req);
    const onProgress = (f: number | null, m: string): void =>
      pr.update(f, workers > 0 ? `${m}; pricing on ${workers} queue worker${workers === 1 ? '' : 's'}` : m);
    const result: JobResult = await dispatcher.run(req, { signal: controller.signal, stopSignal: stopper.signal, onProgress });
    await writeOutputs(plan, result);
    progress.clear();
    if (stopper.signal.aborted) stderr.write(`mechstudio: ${stoppedNote(result)}\n`);
    printResult(plan, req, result, stdout);
    return 0;
  } catch (e) {
    return failWith(e);
  } finally {
    if (sigint) process.off('SIGINT', onSigint);
    opts.signal?.removeEventListener('abort', onAbort);
    for (const t of tempFiles) {
      try {
        unlinkSync(t);
      } catch {
        /* published or never written */
      }
    }
    if (dispatcher && dispatcher !== opts.dispatcher) await dispatcher.close().catch(() => undefined);
    await fleet?.close();
  }
}

/** `--help` anywhere, and `example --list`: answered before any input is read (null: run the command). The current directory must exist. */
function answeredAtOnce(args: ParsedArgs, stdout: ProgressStream): number | null {
  try {
    process.cwd(); // relative paths are resolved against it
  } catch {
    throw new MechError('invalid-input', 'the current directory no longer exists; cd to an existing directory and run again');
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

/** mechanism --kind optimal --queue URL: Redis checked at once (one line when unreachable), then the queue's workers as pricing engine. */
async function connectPricing(target: QueueTarget, log: (line: string) => void, onWorkers: (k: number) => void): Promise<PricingFleet> {
  const { PricingFleet } = await import('../queue/pricing-master');
  await probeRedis(target);
  return PricingFleet.connect(target, { log, onWorkers });
}

/** A channel read from a file too large to carry inline: kept by the local pool's channel store, named by channelRef (read in place by the worker). */
function nameKeptChannel(req: JobRequest, kept: KeptChannel, runner: JobRunner): void {
  if (!(runner instanceof Dispatcher) || (req.type !== 'check' && req.type !== 'measure' && req.type !== 'apply'))
    throw new MechError('internal', 'a large channel file needs the local worker pool');
  req.channelRef = runner.channels.put(kept);
}

/** `mechstudio worker`: take jobs until Ctrl-C / SIGTERM (then finish the running ones; a second Ctrl-C quits at once). */
async function serveQueue(w: NonNullable<Plan['worker']>, quiet: boolean, stderr: ProgressStream, signal: AbortSignal): Promise<number> {
  const { startQueueWorker } = await import('../queue/worker');
  const say = (line: string): void => void stderr.write(`mechstudio worker: ${line}\n`);
  const worker = await startQueueWorker({ target: w.target, concurrency: w.concurrency, ...(quiet ? {} : { log: say }) });
  say(`taking jobs from ${w.target.redacted} (Redis ${worker.redisVersion}), ${w.concurrency} at a time; Ctrl-C stops after the running jobs`);
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

const isMain = process.argv[1] !== undefined && /src-main[\\/]cli[\\/]main\.ts$|bin[\\/]mechstudio(\.js)?$/.test(process.argv[1]);
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
    process.stderr.write(`mechstudio: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
  main(process.argv.slice(2)).then(
    (code) => {
      settled = true;
      process.exitCode = code;
    },
    (e: unknown) => {
      settled = true;
      process.stderr.write(`mechstudio: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
