import type { CoarseStartInfo } from '../../mechanism/lp-result';
import { MechError } from '../../../src-shared/errors';
import type { Domain } from '../../metric/domain';
import { Deadline } from '../../base/deadline';
import { gridDomain } from '../../metric/grid';
import { resolveLoss, scaledCost, secretsAsOutputs } from './loss-input';
import { gapFraction, type LpOptions } from '../solver/lp-options';
import { solvePrivateChannelLp } from '../channel/private-channel-lp';

/**
 * A start for the decomposition of a large grid (docs/lp.md, "Coarse start"): solve the same problem on the grid of
 * 2 x 2 blocks (cells twice as large, the prior summed over each block), recursively, and spread the coarse optimum's
 * duals over the fine cells in proportion to the prior,
 *   lambda_fine(x) = lambda_coarse(X) pi_x / pi_X   (X the block of x),
 * the dual of a row sum being, like the cost, proportional to the secret's prior. Any duals give a valid Lagrangian
 * bound, so a poor start costs one pricing round and nothing else; a good one gives the fine solve a bound near the
 * optimum at its first round. Measured on the 20 x 20 city at eps 0.5 (spanner, 2 threads): the 10 x 10 coarse
 * solve takes 3 s, the first fine bound is 2.750 km (the best bound after 120 s from lambda = 0 was 1.951), and
 * the gap after 120 s is 2.9% instead of 37% (docs/lp-measurements.md, "The start, the smoothing and the incumbent").
 */

/**
 * Secrets from which a grid gets a coarse start (below, the solve from lambda = 0 takes seconds: 10 x 10 city at eps
 * 0.5, 3 s).
 */
export const COARSE_START_MIN_SECRETS = 150;
/** Target gap of a coarse solve: its duals need not be exact. */
const COARSE_START_GAP = 1e-3;
/** Share of the caller's time limit a coarse solve (with its own coarser starts) may use. */
const COARSE_START_TIME_SHARE = 0.2;

/** What the coarse start solved (typed, for the LP record). */

export interface CoarseStart {
  /** Duals for the fine decomposition, in its scaled cost units (minimising). */
  duals: Float64Array;
  info: CoarseStartInfo;
}

interface CoarseStartProblem {
  domain: Domain;
  eps: number;
  pi: Float64Array;
  loss: 'dist' | 'dist2';
  /**
   * The fine model's constraints, the coarse grid's too. An exact model's coarse grid is solved exact (exact
   * pricing): on 50 x 50 (0.5 km cells, eps ln 4 per km) its 25 x 25 start took 10.5 s and gave a first fine bound of
   * 1.2187 km, against 34.3 s and 1.1999 km solved with the 1.1-spanner (docs/lp-measurements.md).
   */
  model: 'exact' | 'spanner' | 'edges';
  delta?: number;
  /** Scale of the fine LP's costs (scaledCost): the duals are returned in those units. */
  costScale: number;
}

interface CoarseStartOptions extends LpOptions {
  /**
   * The caller's budget: the coarse solve gets COARSE_START_TIME_SHARE of its span, from the coarse start's own start.
   */
  deadline?: Deadline;
  threads?: number;
  shouldStop?: () => boolean;
  /**
   * Coarse grids over this many cells are not solved: the level below's duals are spread over their cells instead
   * (a bound without a master: at 100 x 100 the 50 x 50 solve took its whole share for a 29% gap).
   */
  solveMaxSecrets?: number;
}

/**
 * The grid of 2 x 2 blocks of a grid domain, and the block of each fine cell; null when the domain is no grid or too
 * small.
 */
export function coarseGrid(domain: Domain): { domain: Domain; block: Int32Array } | null {
  const g = domain.structure.grid;
  if (!g || domain.n < COARSE_START_MIN_SECRETS || g.rows < 2 || g.cols < 2) return null;
  const rows = Math.ceil(g.rows / 2);
  const cols = Math.ceil(g.cols / 2);
  const block = new Int32Array(domain.n);
  for (let i = 0; i < g.rows; i++) for (let j = 0; j < g.cols; j++) block[i * g.cols + j] = (i >> 1) * cols + (j >> 1);
  return { domain: gridDomain(rows, cols, 2 * g.step, g.metric), block };
}

/**
 * A round of the coarse start as progress: its share of the job's bar (1% to 10%, moving with its gap toward
 * COARSE_START_GAP) and what it does, in km (the app's unit for grids).
 */
export function coarseProgress(
  g: { rows: number; cols: number; step: number },
  round: number,
  gap: number,
): [number, string] {
  const pct = Number((gap * 100).toPrecision(2));
  return [
    0.01 + 0.09 * gapFraction(gap, COARSE_START_GAP),
    `a quick first solve on a coarser grid (${g.rows} x ${g.cols} cells of ${g.step} km): round ${round}, gap ${pct}%`,
  ];
}

/**
 * The coarse start for a grid problem, or null (no grid, too small, stopped before the coarse solve, or a coarse
 * solve that found no bound with no level below it). The coarse solve counts against the caller's time limit: it gets
 * COARSE_START_TIME_SHARE of it.
 */
export async function coarseStart(p: CoarseStartProblem, options: CoarseStartOptions): Promise<CoarseStart | null> {
  const coarse = coarseGrid(p.domain);
  if (!coarse || options.shouldStop?.()) return null;
  const deadline = (options.deadline ?? Deadline.after(undefined)).share(COARSE_START_TIME_SHARE);
  const t0 = deadline.startedAt;
  const { domain, block } = coarse;
  const piC = new Float64Array(domain.n);
  for (let x = 0; x < p.pi.length; x++) piC[block[x]!] = piC[block[x]!]! + p.pi[x]!;
  const { cost, scale } = scaledCost(
    domain,
    secretsAsOutputs(domain),
    piC,
    resolveLoss(p.loss, secretsAsOutputs(domain), domain.n),
  );
  const sub: CoarseStartOptions = { ...options, deadline };
  const inner = await coarseStart({ ...p, domain, pi: piC, costScale: scale }, sub);
  if (domain.n > (options.solveMaxSecrets ?? Infinity))
    return inner ? { duals: spread(inner.duals, scale / p.costScale, p.pi, piC, block), info: inner.info } : null;
  const g = domain.structure.grid!;
  const s = await solvePrivateChannelLp(
    {
      domain,
      eps: p.eps,
      outputs: domain.n,
      cost,
      sense: 'minimize',
      constraints: p.model,
      delta: p.delta,
      outputsAreSecrets: true,
      symmetry: 'off',
      generation: 'off',
      decomposition: 'on',
      decompositionOptions: {
        tolerance: COARSE_START_GAP,
        threads: options.threads ?? 1,
        deadline,
        shouldStop: options.shouldStop,
        ...(inner ? { startDuals: inner.duals, smoothingMode: 'adaptive' as const } : {}),
        onRound: (r) => options.onProgress?.(...coarseProgress(g, r.round, r.gap)),
      },
      what: `a quick first solve on a coarser grid (${g.rows} x ${g.cols} cells of ${g.step} km)`,
    },
    {
      signal: options.signal,
      cancelFlag: options.cancelFlag,
      ...(deadline.limited ? { timeLimitSeconds: deadline.seconds } : {}),
    },
  );
  const d = s.decomposition;
  if (!d) throw new MechError('internal', 'the coarse start was not solved by decomposition');
  // A coarse solve stopped before its first bound: the level below's duals (in this level's units) instead.
  const from = d.bound > 0 ? d.duals : inner?.duals;
  if (!from) return null;
  return {
    duals: spread(from, scale / p.costScale, p.pi, piC, block),
    info: {
      rows: g.rows,
      cols: g.cols,
      cellSize: g.step,
      levels: inner ? inner.info.levels + 1 : 0,
      objective: s.objective * scale,
      gap: d.gap,
      stoppedBy: d.stoppedBy,
      timeMs: performance.now() - t0,
    },
  };
}

/** Coarse duals spread over the fine cells in proportion to the prior (times `ratio`, the ratio of cost scales). */
function spread(
  coarse: Float64Array,
  ratio: number,
  pi: Float64Array,
  piC: Float64Array,
  block: Int32Array,
): Float64Array {
  const duals = new Float64Array(pi.length);
  for (let x = 0; x < duals.length; x++) {
    const X = block[x]!;
    duals[x] = piC[X]! > 0 ? (coarse[X]! * ratio * pi[x]!) / piC[X]! : 0;
  }
  return duals;
}
