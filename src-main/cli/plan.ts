/** What a command plans (a job, a project run, a queue worker, a message) and the flag readers every planner shares. */
import { MechError, invalid } from '../../src-shared/errors';
import {
  LP_MODELS,
  MAX_LP_TIME_LIMIT_SECONDS,
  checkedLpOption,
  mechanismKindSchema,
  type LpOptionKey,
  type LpOptions,
  type CompareMechanism,
  type JobRequest,
  type PriorInput,
  type Project,
} from '../../src-shared/protocol/index';
import { parseDomainSpecText } from '../../src-shared/grammar/domain-spec';
import type { KeptChannel } from '../../src-worker/index';
import { type QueueTarget } from '../queue/connection';
import type { MapGeoJson, PlannedRelease } from './release-log';
import type { PlannedReport } from './report';
import { Flags, type ParsedArgs } from './args';
import {
  domainPointsFromText,
  parsePointsPriorArg,
  parsePriorArg,
  type PointsPrior,
  resolveDomainArg,
} from '../fs/inputs';

export interface Plan {
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
  /** `mechstudio report`: the study report of a project. */
  report?: PlannedReport;
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
  /**
   * A channel CSV too large to carry inline: put in the dispatcher's channel store, the request names it by channelRef.
   */
  kept?: KeptChannel;
  /** apply --project P: the release to record into P's release log. */
  release?: PlannedRelease;
  /** apply --geojson FILE: the released points as GeoJSON (absolute path). */
  geojson?: string;
  /** mechanism --geojson FILE: the map of the focus cell's reports on the lat,lon grid. */
  mapGeojson?: MapGeoJson;
}

/**
 * --domain and --prior of a construction, with points:FILE priors:
 * the points grid is the domain when --domain is not given; when it is, it
 * must have the grid's rows and columns.
 */
export function domainAndPrior(
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
  return {
    domain,
    prior: parsePriorArg(priorText, undefined, domain === undefined ? undefined : domainPointsFromText(domain)),
  };
}

export function shortText(s: string): string {
  return s.length > 60 ? `${s.slice(0, 60)}...` : s;
}

/** Lines to print about a points prior. */
export function pointsLines(pp: PointsPrior | undefined): { warnings?: string[] } {
  if (!pp) return {};
  return pp.outsideWarning ? { warnings: [`warning: ${pp.outsideWarning}`] } : {};
}

/** --remap needs --prior and --loss (it minimises the expected loss under the prior). */
export function remapFlag(f: Flags): boolean {
  if (!f.bool('remap')) return false;
  const missing = ['prior', 'loss'].filter((k) => !f.has(k));
  if (missing.length)
    invalid(
      `--remap needs --prior and --loss (the remap replaces each output by the guess of least expected loss under the prior); missing ${missing.map((k) => `--${k}`).join(' and ')}`,
    );
  return true;
}

/** Largest secrets CSV for apply (bytes; streamed, never held). */
export const MAX_SECRETS_CSV_BYTES = 64 * 1024 ** 3;

/** --kinds of compare: a comma list of kinds, each optionally followed by +remap. */
export function parseCompareKinds(text: string): CompareMechanism[] {
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

/** The flag of each LP option the command line takes (lpThreads is --threads, the pool's own flag). */
const LP_OPTION_FLAGS = {
  lpModel: 'lp-model',
  delta: 'delta',
  timeLimitSeconds: 'time-limit',
  targetGap: 'target-gap',
} as const satisfies Partial<Record<LpOptionKey, string>>;
/** The LP flags (--gap is another name for --target-gap). */
export const LP_FLAGS = [...Object.values(LP_OPTION_FLAGS), 'gap'] as const;

/** The LP options of the flags (kind optimal), each checked by the protocol's schema; a refusal names the flag. */
export function lpFlags(f: Flags, kind: string): Pick<LpOptions, keyof typeof LP_OPTION_FLAGS> {
  const given = LP_FLAGS.filter((k) => f.has(k));
  if (given.length === 0) return {};
  if (kind !== 'optimal') invalid(`--${given[0]} applies only to --kind optimal`);
  if (f.has('gap') && f.has('target-gap')) invalid('give one of --target-gap and --gap (the same option)');
  const out: ReturnType<typeof lpFlags> = {};
  const model = f.str('lp-model');
  if (model !== undefined)
    out.lpModel =
      checkedLpOption('lpModel', model) ??
      invalid(
        `--lp-model must be one of ${LP_MODELS.join(', ')}, got '${model.length > 40 ? `${model.slice(0, 40)}...` : model}'`,
      );
  const delta = f.num('delta');
  if (delta !== undefined)
    out.delta =
      checkedLpOption('delta', delta) ??
      invalid(`--delta (spanner dilation) must be a number from 1 to 10, got ${delta}`);
  const t = f.num('time-limit');
  if (t !== undefined)
    out.timeLimitSeconds =
      checkedLpOption('timeLimitSeconds', t) ??
      invalid(
        `--time-limit must be a number of seconds > 0 and at most ${MAX_LP_TIME_LIMIT_SECONDS} (a week), got ${t}`,
      );
  const gapName = f.has('gap') ? 'gap' : 'target-gap';
  const g = f.num(gapName);
  if (g !== undefined)
    out.targetGap =
      checkedLpOption('targetGap', g) ??
      invalid(`--${gapName} must be a relative gap > 0 and < 1 (e.g. 0.01 for 1%), got ${g}`);
  return out;
}

export function noPositional(args: ParsedArgs): void {
  if (args.positional.length)
    throw new MechError('invalid-input', `unexpected argument '${args.positional[0]}' for '${args.command}'`);
}
