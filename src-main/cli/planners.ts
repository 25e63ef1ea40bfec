/** One planner per command: its flags and files checked, its request built (docs/cli.md, "Commands"). */
import { availableParallelism } from 'node:os';
import { basename, resolve } from 'node:path';
import { MechError, invalid } from '../../src-shared/errors';
import {
  type ApplyRequest,
  type JobRequest,
  type MechanismSpec,
  type AuditRequest,
} from '../../src-shared/protocol/index';
import { withDefaultLpThreads, type KeptChannel } from '../../src-worker/index';
import { parseQueueUrl, queueUrlFrom } from '../queue/connection';
import { REFUSE_SYSTEM_FS, checkReadableFileSync, checkRegularFile, checkWriteTarget } from '../fs/safe-fs';
import { examplePath, listExamples } from '../project/examples';
import { Flags, type ParsedArgs } from './args';
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
import {
  LP_FLAGS,
  MAX_SECRETS_CSV_BYTES,
  type Plan,
  domainAndPrior,
  lpFlags,
  noPositional,
  parseCompareKinds,
  pointsLines,
  remapFlag,
  shortText,
} from './plan';
import { outDir, outFile, queueFlag, readProject } from './run-output';
import { mapGeoJsonFlags, planRelease } from './release-log';
import { planReport } from './report';
import type { CommandName } from './usage';

/** The flags that say which mechanism: mechanism and apply take them alike. */
const MECHANISM_FLAGS = ['domain', 'epsilon', 'kind', 'prior', 'loss', 'remap'];

/** `mechstudio mechanism`: its flags checked, its job or project planned. */
function planMechanism(args: ParsedArgs): Plan {
  const f = new Flags(args, [
    ...MECHANISM_FLAGS,
    'out',
    'json',
    'print',
    'quiet',
    'queue',
    'geojson',
    'focus',
    ...LP_FLAGS,
  ]);
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
  // --threads N also prices the optimal LP on N threads at most the cores (one HiGHS instance each; the same optimum),
  // as the engine decides it (lp/pricing/lp-threads.ts); without it the engine uses every core on large problems.
  const threadsFlag = args.flags.get('threads');
  const requested = typeof threadsFlag === 'string' ? parseDecimal(threadsFlag) : null;
  if (requested !== null && Number.isInteger(requested) && requested >= 1)
    withDefaultLpThreads(req, { pool: availableParallelism(), requested });
  if (dp.prior !== undefined) req.prior = dp.prior;
  const loss = f.str('loss');
  if (loss !== undefined) req.loss = parseLossArg(loss);
  if (remap) req.remap = true;
  const out = f.str('out');
  // Only the flag (not MECHSTUDIO_QUEUE): a queue set for project runs does not move a single LP's pricing.
  const queue = f.str('queue');
  if (queue !== undefined && req.kind !== 'optimal')
    invalid(`--queue applies only to --kind optimal (its pricing rounds run on the queue's workers)`);
  const mapGeojson = mapGeoJsonFlags(f, dp.points?.binning);
  return {
    ...(mapGeojson ? { mapGeojson } : {}),
    request: req,
    ...(queue !== undefined ? { pricingQueue: parseQueueUrl(queue) } : {}),
    ...outFile(out),
    json: f.bool('json'),
    print: f.bool('print'),
    ...pointsLines(dp.points),
    ...(dp.points ? { pointsPrior: dp.points } : {}),
  };
}

/**
 * The absolute path of a CSV a job streams from (apply's secrets, audit's samples), checked: a readable regular
 * file of at most MAX_SECRETS_CSV_BYTES, not under /proc or /sys (their files stat as regular files of size 0:
 * /proc/self/environ would be read as data), so a device, FIFO, directory or pseudo-file is one line naming it.
 */
async function checkedInput(path: string, what: string): Promise<string> {
  const input = resolve(path);
  await checkRegularFile(input, what, MAX_SECRETS_CSV_BYTES, REFUSE_SYSTEM_FS);
  checkReadableFileSync(input, what, MAX_SECRETS_CSV_BYTES);
  return input;
}

/** `mechstudio apply`: its flags checked, its job or project planned. */
async function planApply(args: ParsedArgs, signal: AbortSignal): Promise<Plan> {
  const f = new Flags(args, [
    'channel',
    ...MECHANISM_FLAGS,
    'input',
    'out',
    'seed',
    'header',
    'json',
    'quiet',
    'project',
    'population',
    'over-budget',
    'geojson',
    ...LP_FLAGS,
  ]);
  noPositional(args);
  const input = await checkedInput(f.need('input', 'secrets.csv'), 'secrets CSV');
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
    const construction = ['kind', 'loss', 'remap', ...LP_FLAGS].filter((k) => f.has(k));
    if (construction.length)
      invalid(`apply takes --channel or the construction flags, not both (got --channel and --${construction[0]})`);
    // Without --domain the secrets are the channel's row labels.
    dp = domainAndPrior(f, false, args.onReadProgress);
    const channelPath = resolve(f.need('channel', 'mech.csv'));
    const c = await readChannelCsv(
      channelPath,
      signal,
      dp.domain === undefined ? undefined : domainPointsFromText(dp.domain),
    );
    if (c.kept && dp.domain === undefined)
      invalid(
        `the channel in ${channelPath} is too large to carry its labels as the secrets: give --domain (its ${c.kept.rows} points are the rows)`,
      );
    kept = c.kept;
    req = {
      type: 'apply',
      ...(c.channel ? { channel: c.channel } : {}),
      ...(dp.domain !== undefined ? { domain: dp.domain } : {}),
      input,
      out: outText,
    };
    // the eps the channel is released under: it is checked private at it before a row is released
    if (f.has('epsilon')) {
      if (dp.domain === undefined)
        invalid('apply --channel with --epsilon needs --domain (the distances eps is about)');
      req.epsilon = f.needPositive('epsilon', '0.693');
    }
  } else {
    const remap = remapFlag(f);
    dp = domainAndPrior(f, true, args.onReadProgress);
    const spec: MechanismSpec = {
      domain: dp.domain!,
      epsilon: f.needPositive('epsilon', '0.693'),
      kind: f.need('kind', 'planar-laplace') as 'tg',
    };
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
  const geojson = geojsonFlag(f, dp.points);
  const mechanismName = req.mechanism
    ? `${req.mechanism.kind}${req.mechanism.remap ? '+remap' : ''}`
    : `channel:${basename(f.str('channel')!)}`;
  const release = await planRelease(f, input, req.mechanism ? req.mechanism.epsilon : req.epsilon, mechanismName);
  const lines = pointsLines(dp.points);
  if (seed !== undefined)
    lines.warnings = [
      ...(lines.warnings ?? []),
      `warning: --seed ${seed}: a reproducible stream for tests, NOT for release (the output's first line says so)`,
    ];
  return {
    request: req,
    ...outFile(outText),
    json: f.bool('json'),
    print: false,
    ...lines,
    ...(dp.points ? { pointsPrior: dp.points } : {}),
    ...(kept ? { kept } : {}),
    ...(release ? { release } : {}),
    ...(geojson ? { geojson } : {}),
  };
}

/** --geojson FILE of apply: only for point secrets on a lat,lon grid (the released cells' centres are lat,lon). */
function geojsonFlag(f: Flags, points: PointsPrior | undefined): string | undefined {
  const g = f.str('geojson');
  if (g === undefined) return undefined;
  if (g === '') invalid('--geojson needs a file name (e.g. --geojson released.geojson)');
  if (!points?.binning.projection)
    invalid(
      '--geojson needs point secrets on a lat,lon grid: give --prior points:FILE.csv of lat,lon points (the released cells are then lat,lon)',
    );
  return checkWriteTarget(resolve(g), '--geojson file');
}

/** `mechstudio audit`: a claim (--epsilon per unit of distance) tested on samples secret,released. */
async function planAudit(args: ParsedArgs): Promise<Plan> {
  const f = new Flags(args, ['samples', 'domain', 'epsilon', 'confidence', 'prior', 'detect', 'json', 'quiet']);
  noPositional(args);
  const input = await checkedInput(f.need('samples', 'log.csv'), 'samples CSV');
  // --prior points:FILE gives the grid point samples are binned on (the domain unless --domain is given).
  const prior = args.flags.get('prior');
  if (typeof prior === 'string' && !prior.trim().startsWith('points:'))
    invalid(
      `--prior in audit gives the grid of point samples only (points:FILE.csv[:cell=KM]...), got '${shortText(prior)}'`,
    );
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
      if (v === null || !(v > 0))
        invalid(`--detect takes a comma list of eps values > 0 (violation sizes), got '${shortText(t)}'`);
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
    if (v === undefined || !Number.isInteger(v) || v < 0)
      invalid(`--focus must be a cell index (an integer >= 0), got '${String(args.flags.get('focus'))}'`);
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
  if (e !== undefined && domain === undefined)
    throw new MechError('invalid-input', '--epsilon needs --domain (the metric the epsilon scales)');
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
    if (rows !== pp.grid.rows * pp.grid.cols)
      invalid(`the channel has ${rows} rows but the points grid ${pp.domain} has ${pp.grid.rows * pp.grid.cols} cells`);
    req.prior = pp.prior;
  } else if (prior !== undefined) req.prior = parsePriorArg(prior);
  if (loss !== undefined) req.loss = parseLossArg(loss);
  return {
    request: req,
    json: f.bool('json'),
    print: false,
    ...pointsLines(pp),
    ...(pp ? { pointsPrior: pp } : {}),
    ...(c.kept ? { kept: c.kept } : {}),
  };
}

/** --domain and --epsilon, in that order (the example a missing --domain is shown with, else line:6). */
function domainAndEpsilon(f: Flags, example = 'line:6'): { domain: string; epsilon: number } {
  return { domain: resolveDomainArg(f.need('domain', example)), epsilon: f.needPositive('epsilon', '0.693') };
}

/** `mechstudio check`: its flags checked, its job or project planned. */
async function planCheck(args: ParsedArgs, signal: AbortSignal): Promise<Plan> {
  const f = new Flags(args, ['channel', 'domain', 'epsilon', 'json', 'quiet']);
  noPositional(args);
  const channelPath = resolve(f.need('channel', 'mech.csv'));
  const { domain, epsilon } = domainAndEpsilon(f);
  // the domain's size first: a channel with more rows is refused at its first extra row
  const c = await readChannelCsv(channelPath, signal, domainPointsFromText(domain));
  const req: JobRequest = { type: 'check', ...(c.channel ? { channel: c.channel } : {}), domain, epsilon };
  return { request: req, json: f.bool('json'), print: false, ...(c.kept ? { kept: c.kept } : {}) };
}

/** `mechstudio capacity`: its flags checked, its job or project planned. */
function planCapacity(args: ParsedArgs): Plan {
  const f = new Flags(args, ['domain', 'epsilon', 'out', 'json', 'quiet']);
  noPositional(args);
  const req: JobRequest = { type: 'capacity', ...domainAndEpsilon(f) };
  const out = f.str('out');
  return { request: req, ...outFile(out), json: f.bool('json'), print: false };
}

/** `mechstudio regular`: its flags checked, its job or project planned. */
function planRegular(args: ParsedArgs): Plan {
  const f = new Flags(args, ['domain', 'epsilon', 'prior', 'json', 'quiet']);
  noPositional(args);
  const { domain, epsilon } = domainAndEpsilon(f);
  const req: JobRequest = {
    type: 'regular',
    domain,
    epsilon,
    prior: parsePriorArg(f.need('prior', 'uniform'), undefined, domainPointsFromText(domain)),
  };
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
  const req: JobRequest = { type: 'vertices', ...domainAndEpsilon(f, 'line:3'), kernels: f.bool('kernels') };
  return { request: req, json: f.bool('json'), print: false };
}

/** `mechstudio run`: its flags checked, its job or project planned. */
function planRun(args: ParsedArgs): Plan {
  const f = new Flags(args, ['out', 'json', 'quiet', 'queue']);
  if (args.positional.length !== 1)
    throw new MechError(
      'invalid-input',
      'run needs exactly one PROJECT.json (e.g. mechstudio run voting.json --out results)',
    );
  const path = resolve(args.positional[0]!);
  const out = outDir(f.str('out') ?? 'mechstudio-out');
  return { project: readProject(path, out), ...queueFlag(f), json: f.bool('json'), print: false };
}

/** `mechstudio worker`: its flags checked, its job or project planned. */
function planWorker(args: ParsedArgs): Plan {
  const f = new Flags(args, ['queue', 'concurrency', 'quiet']);
  noPositional(args);
  const url = queueUrlFrom(f.str('queue'), process.env, true);
  if (url === null)
    invalid('worker needs --queue redis://HOST:PORT[/DB] (or MECHSTUDIO_QUEUE / REDIS_URL in the environment)');
  const c = f.num('concurrency');
  if (c !== undefined && !(Number.isInteger(c) && c >= 1 && c <= 256))
    invalid(`--concurrency must be an integer from 1 to 256, got ${c}`);
  return {
    worker: { target: parseQueueUrl(url), concurrency: c ?? availableParallelism() },
    json: false,
    print: false,
  };
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

/** Each command's planner: the command table (its names are the help's, usage.ts COMMAND_USAGE). */
export const PLANNERS: Record<CommandName, (args: ParsedArgs, signal: AbortSignal) => Plan | Promise<Plan>> = {
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
  report: planReport,
};

export async function buildPlan(args: ParsedArgs, signal: AbortSignal): Promise<Plan> {
  const c = args.command;
  const planner = Object.prototype.hasOwnProperty.call(PLANNERS, c) ? PLANNERS[c as CommandName] : undefined;
  if (!planner)
    throw new MechError(
      'invalid-input',
      `unknown command '${c}' (${Object.keys(PLANNERS).join(', ')}; see mechstudio help)`,
    );
  return planner(args, signal);
}
