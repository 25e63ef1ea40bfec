/** The command line's help text (generated from the grammar's domain forms) and its exit codes (docs/cli.md). */
import { LP_MODELS, isInputErrorCode, mechanismKindSchema } from '../../src-shared/protocol/index';
import { DOMAIN_FORMS } from '../../src-shared/grammar/domain-spec';

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

/**
 * Each command's lines of the help, in the help's order: the command table (planners.ts types PLANNERS by these
 * names, so a command without its help, or help without its planner, does not compile) and the help's list.
 */
export const COMMAND_USAGE = {
  mechanism: `  mechstudio mechanism --domain D --epsilon E --kind K [--prior P] [--loss L] [--out FILE.csv] [--print] [--json]
                       kind optimal: [--lp-model ${LP_MODELS.join('|')}] [--delta D] [--time-limit SECONDS] [--target-gap G]
                       [--queue redis://HOST:PORT[/DB]] (the LP's pricing rounds on the queue's workers; see README "Scaling out")
                       [--remap] (needs --prior and --loss: the outputs remapped to the best guesses; original vs remapped expected loss)
                       [--geojson MAP.geojson [--focus CELL]] (with --prior points:FILE of lat,lon: where a user at CELL is reported)`,
  apply: `  mechstudio apply     (--channel C.csv [--domain D [--epsilon E]] | --domain D --epsilon E --kind K [--remap --prior P --loss L])
                       --input SECRETS.csv --out RELEASED.csv [--header yes|no] [--seed N (reproducible, NOT for release)] [--json]
                       (without --domain the channel's row labels are the secrets; line 1 is a header unless it is a secret)
                       [--project P.json [--population NAME] [--over-budget]] (the release recorded into P's release log;
                       refused past P's privacy budget unless --over-budget) [--geojson FILE] (points on a lat,lon grid)`,
  audit: `  mechstudio audit     --samples FILE.csv --domain D --epsilon E [--confidence C (0.99)] [--detect E1,E2,...] [--json]
                       (a claim eps per unit of distance tested on samples secret,released: refuted, not-refuted or not-tested,
                       a lower confidence bound on the effective eps, the witness pair and event; point samples
                       secret_x,secret_y,released_x,released_y with --prior points:FILE.csv; docs/audit.md)`,
  compare: `  mechstudio compare   --domain D --epsilon E --kinds K1,K2+remap,... [--prior P] [--loss L] [--focus CELL]
                       [--out TABLE.csv] [--png CHART.png] [--json]   (one row per mechanism: expected km with and
                       without remap, P(true cell), leakage bits, effective eps per km, % vs planar Laplace)`,
  measure: `  mechstudio measure   --channel FILE.csv [--domain D --epsilon E] [--prior P] [--loss L] [--json]`,
  check: `  mechstudio check     --channel FILE.csv --domain D --epsilon E [--json]`,
  capacity: `  mechstudio capacity  --domain D --epsilon E [--out FILE.csv] [--json]`,
  regular: `  mechstudio regular   --domain D --epsilon E --prior P [--json]`,
  threshold: `  mechstudio threshold --domain D [--from A] [--to B] [--step S] [--json]`,
  vertices: `  mechstudio vertices  --domain D --epsilon E [--kernels] [--json]`,
  run: `  mechstudio run       PROJECT.json [--out DIR] [--queue URL] [--json]`,
  example: `  mechstudio example   NAME [--out DIR] [--queue URL] [--json]      (mechstudio example --list)`,
  report: `  mechstudio report    PROJECT.json --out STUDY.html [--pdf STUDY.pdf] [--json]
                       (the study report: inputs with their SHA-256, each mechanism's guarantee with its kept channel
                       checked again, comparisons, releases, audits and the privacy budget; --pdf prints it with Chromium)`,
  worker: `  mechstudio worker    --queue redis://HOST:PORT[/DB] [--concurrency N]
                       runs queued jobs (run --queue URL sends a project's items to the queue; see README "Scaling out")`,
} as const;
export type CommandName = keyof typeof COMMAND_USAGE;

export const USAGE = `Usage:
${Object.values(COMMAND_USAGE).join('\n')}
${domainFormsHelp()}
Kinds: ${mechanismKindSchema.options.join(' ')}
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
