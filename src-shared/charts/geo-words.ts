/**
 * The geo case study's findings in words (src-worker/casestudy/geo.ts computes them as a typed record,
 * protocol/casestudy-findings.ts): the grid comparison, the city rows' labels and notes, and the mathematics behind
 * them. casestudy-words.ts calls these for the study; the engine's city table takes its note column from cityRowNote.
 */
import {
  spannerExtraError,
  type CityGrid,
  type CityLpFacts,
  type CityMechanism,
  type CityRow,
  type FindingsOf,
  type GeoGridPoint,
} from '../protocol/index';
import { shortNumber as f } from './number-words';

type GeoFindings = FindingsOf<'geo'>;
const exists = (r: CityRow): boolean => r.status === 'computed';

/** The city comparison's mechanisms in words. */
const CITY_MECHANISM_NAMES: Record<CityMechanism, string> = {
  'planar-laplace': 'planar Laplace',
  tight: 'tight-constraints',
  'lp-spanner': 'optimised for the prior (fast)',
  'lp-exact': 'optimised for the prior (exact)',
};

/** A city mechanism's name. */
export const cityMechanismName = (m: CityMechanism): string => CITY_MECHANISM_NAMES[m];
export const cityGridLabel = (g: CityGrid): string => `${g.side} x ${g.side}, ${g.cellKm} km`;
export const cityMechanismLabel = (r: Pick<CityRow, 'mechanism' | 'remap'>): string =>
  `${CITY_MECHANISM_NAMES[r.mechanism]}${r.remap ? ', remapped' : ''}`;

/** How an LP row was solved, in the notation (the study's details). */
function lpDetails(lp: CityLpFacts, mechanism: CityMechanism): string {
  const dec = lp.decomposition;
  const gen = lp.generation
    ? `constraint generation: ${lp.generation.rounds} rounds, ${lp.generation.privacyRows} of ${lp.generation.fullPrivacyRows} privacy rows, `
    : dec
      ? `decomposition by output column: ${dec.rounds} rounds, ${dec.columns} columns, certified lower bound ${f(dec.lowerBound, 8)} km (gap ${f(dec.relativeGap, 2)}${lp.stoppedBy === 'time-limit' ? ', stopped by the time limit' : ''}), `
      : '';
  return `${lp.passes ? 'privacy check passes' : 'privacy check FAILS'}; ${mechanism === 'lp-spanner' ? `spanner dilation ${lp.delta ?? '?'}, ` : ''}${gen || `${lp.constraints} constraints, `}solver ${f(lp.solverMs / 1000, 3)} s`;
}

/** The note column of a city row, in words (rendered from its typed fields only; the notation in cityRowDetails). */
export function cityRowNote(r: CityRow): string {
  if (r.remap)
    return 'each report replaced by the best guess for this prior (a post-processing step: the privacy is unchanged)';
  if (r.status === 'skipped')
    return `not computed at this ε (the full city is optimised at ε = ${(r.optimisedAt ?? []).join(', ')} only)`;
  if (r.status === 'failed') return `not computed: ${r.failure ?? ''}`;
  switch (r.mechanism) {
    case 'planar-laplace':
      return 'private at ε exactly (the continuous mechanism, snapped to the grid)';
    case 'tight':
      return r.minZ
        ? `does not exist: its weights would have to be negative (smallest ${f(r.minZ.value)} at cell ${r.minZ.at})`
        : 'the best for guessing the exact cell when the prior allows it, not for closeness';
    default:
      return r.lp
        ? `${r.lp.passes ? 'the privacy check passes' : 'the privacy check FAILS'}; solved in ${f(r.lp.solverMs / 1000, 3)} s`
        : '';
  }
}

/**
 * The mathematics of a city row (the study's details): the remap's method, the missing weight, how an LP was solved;
 * null when there is none.
 */
export function cityRowDetails(r: CityRow): string | null {
  if (r.remap) return `Bayesian remap of its outputs (${r.remap.method}): post-processing, still eps*d2-private`;
  if (r.status !== 'computed' && r.status !== 'absent') return null;
  if (r.mechanism === 'tight') return r.minZ ? `Phi z = 1 has min z = ${f(r.minZ.value)} < 0 at ${r.minZ.at}` : null;
  return r.lp ? lpDetails(r.lp, r.mechanism) : null;
}

/**
 * The mathematics behind part (b): what the two LPs constrain, how each row was solved, the certified bracket of the
 * spanner's extra error.
 */
function cityDetails(c: GeoFindings['city']): string[] {
  if (c === null || c.rows.length === 0) return [];
  const city = c.rows;
  const out = [
    `City: "optimised for the prior (fast)" is the spanner LP's optimum for expected distance (dilation 1.1; not the best possible): privacy constraints eps/1.1 on spanner edges only, which implies eps*d2-privacy but excludes some eps*d2-private channels; "(exact)" constrains all pairs. The full ${c.side} x ${c.side} city's LP has ${c.side ** 4} variables; it is solved by decomposition over output columns and certified by a Lagrangian lower bound.`,
  ];
  for (const r of city) {
    const d = cityRowDetails(r);
    if (d) out.push(`- eps ${r.eps}, ${cityGridLabel(r.grid)}, ${cityMechanismLabel(r)}: ${d}.`);
  }
  for (const e of c.epsilons) {
    const fullRows = city.filter((r) => r.eps === e && r.grid.full);
    const lp = fullRows.find((r) => r.mechanism === 'lp-spanner');
    const lpx = fullRows.find((r) => r.mechanism === 'lp-exact');
    const extra = lp && exists(lp) ? spannerExtraError(lp, lpx) : null;
    if (extra)
      out.push(
        `- eps ${e}, full city: the exact all-pairs optimum lies in [${f(extra.lower)}, ${f(extra.upper)}] km (certified${lpx && exists(lpx) ? `: the exact model by decomposition, ${lpx.lp?.decomposition ? `gap ${f(lpx.lp.decomposition.relativeGap, 2)}` : 'solved'}` : ': the bound of the exact model at the spanner solve'}), so the spanner (dilation 1.1) costs between ${f(extra.extraMin * 100, 3)}% and ${f(extra.extraMax * 100, 3)}% extra error.`,
      );
  }
  return out;
}

/** The mathematics behind part (a): how the grid's mechanisms are computed, and where tight constraints fail. */
function gridDetails(pts: GeoGridPoint[]): string[] {
  const missing = pts.filter((p) => !p.tightExists);
  return [
    'The tight-constraints mechanism is never formed as a matrix: z solves Phi z = 1 by the structured solver, its utility and expected error come from z and FFTs; planar Laplace rows are generated from translation-invariant cell tables.',
    ...(missing.length
      ? [
          `Where tight constraints does not exist, z has negative entries: ${missing.map((p) => `eps ${p.eps}: min z = ${f(p.minZ)} at cell ${p.minZAt}`).join('; ')}.`,
        ]
      : []),
  ];
}

/** Findings of part (a): the G x G grid under the uniform prior. */
function gridFindings(size: number, grid: number[], pts: GeoGridPoint[]): string[] {
  const missing = pts.filter((p) => !p.tightExists);
  const exists = pts.filter((p) => p.tightExists);
  const better = exists.filter((p) => p.tightError! < p.plError);
  return [
    `(a) A ${size} x ${size} km grid of 1 km cells (${size * size} places), every place equally likely, distances as the crow flies.`,
    missing.length === 0
      ? `- The tight-constraints mechanism exists at every ε in ${grid[0]}..${grid[grid.length - 1]}.`
      : `- The tight-constraints mechanism does not exist at ε = ${missing.map((p) => p.eps).join(', ')}: its weights would have to be negative (smallest ${missing.map((p) => `${f(p.minZ)} at cell ${p.minZAt}${missing.length > 1 ? ` at ε = ${p.eps}` : ''}`).join('; ')})${exists.length ? `; it exists at ε = ${exists.map((p) => p.eps).join(', ')}` : ' nor anywhere else in the range'}. On a finite grid the corner and border cells see fewer neighbours, and for small ε the uniform prior is not regular.`,
    ...(exists.length
      ? [
          `- Where it exists its utility (probability of reporting the true cell, best remap) is ${exists.map((p) => `${f(p.tightUtility)} at ${p.eps}`).join(', ')}, against planar Laplace ${exists.map((p) => `${f(p.plUtility)}`).join(', ')}${exists.every((p) => p.tightUtility! >= p.plUtility - 1e-12) ? ': tight-constraints wins at every ε, as it must (it is the best for every regular prior, see the glossary, and the uniform prior is regular wherever it exists)' : ': planar Laplace wins at some ε, which contradicts the optimality of tight-constraints for regular priors and needs investigating'}.`,
          `- Expected distance error (km), tight vs planar Laplace: ${exists.map((p) => `ε ${p.eps}: ${f(p.tightError)} vs ${f(p.plError)}`).join('; ')}. Tight-constraints is ${better.length === exists.length ? 'also better' : better.length === 0 ? 'worse' : 'better only at some ε'} on distance error (${better.length} of ${exists.length} ε values)${better.length === exists.length ? ', although it is designed for the exact cell, not for closeness' : ': it maximises the chance of the exact cell, not closeness'}.`,
        ]
      : []),
    `- Planar Laplace exists at every ε: expected error ${pts.map((p) => `${f(p.plError)} km at ${p.eps}`).join(', ')} (about 2/ε for a continuous plane, less near borders where the tail is snapped).`,
  ];
}

/** Findings of part (b): the city under its population prior (full grid, then the coarse one). */
function cityFindings(c: NonNullable<GeoFindings['city']>): string[] {
  const [citySide, cityEpsList, city] = [c.side, c.epsilons, c.rows];
  const findings: string[] = [];
  findings.push(
    `(b) The ${citySide} x ${citySide} km city with its population prior (dense centre, two suburbs, empty river valley), ε = ${cityEpsList.join(' and ')} per km, expected distance error under that prior. "Optimised for the prior" is the mechanism a linear program finds with the least expected error for this prior; the fast version keeps a safety margin between nearby cells only (private, but not always the best), the exact one constrains every pair of cells:`,
  );
  for (const r of city)
    findings.push(
      `- ε ${r.eps}, ${cityGridLabel(r.grid)}, ${cityMechanismLabel(r)}: ${exists(r) ? `${f(r.error)} km` : 'n/a'}${r.effectiveEps !== null ? ` (effective ε ${f(r.effectiveEps)})` : ''}; ${cityRowNote(r)}.`,
    );
  const rel = (a: number, b: number) =>
    a <= b ? `${f((1 - a / b) * 100, 3)}% below` : `${f((a / b - 1) * 100, 3)}% ABOVE`;
  for (const e of cityEpsList) {
    const fullRows = city.filter((r) => r.eps === e && r.grid.full);
    const lp = fullRows.find((r) => r.mechanism === 'lp-spanner');
    const plf = fullRows.find((r) => r.mechanism === 'planar-laplace' && !r.remap);
    const tcf = fullRows.find((r) => r.mechanism === 'tight' && !r.remap && exists(r));
    // What the Bayesian remap of the outputs buys, and how much of the gap to the LP it recovers.
    const plr = fullRows.find((r) => r.mechanism === 'planar-laplace' && r.remap);
    const tcr = fullRows.find((r) => r.mechanism === 'tight' && r.remap);
    if (plf && plr) {
      const gap =
        lp && exists(lp) && lp.error! < plf.error!
          ? `, ${f(((plf.error! - plr.error!) / (plf.error! - lp.error!)) * 100, 3)}% of its gap to the fast optimised mechanism's ${f(lp.error)} km`
          : '';
      findings.push(
        `- ε = ${e}, full city, each report replaced by the best guess for the prior (post-processing: the privacy is unchanged): planar Laplace ${f(plf.error)} → ${f(plr.error)} km${gap}${tcf && tcr ? `; tight-constraints ${f(tcf.error)} → ${f(tcr.error)} km` : ''}.`,
      );
    }
    if (lp && exists(lp) && plf) {
      findings.push(
        `- ε = ${e}, full ${citySide} x ${citySide} city (1 km cells): the fast optimised mechanism has expected error ${f(lp.error)} km, ${rel(lp.error!, plf.error!)} planar Laplace's ${f(plf.error)} km${tcf ? ` and ${rel(lp.error!, tcf.error!)} tight-constraints' ${f(tcf.error)} km` : ' (tight-constraints does not exist here)'}; its channel passes the privacy check (effective ε ${f(lp.effectiveEps)}).${tcf && lp.error! > tcf.error! ? ' Its safety margin leaves out some private mechanisms, such as tight-constraints, which can then beat it; the best possible error is at most the smaller of the two.' : ''}`,
      );
      const lpx = fullRows.find((r) => r.mechanism === 'lp-exact');
      const extra = spannerExtraError(lp, lpx);
      if (extra)
        findings.push(
          `- ε = ${e}, full city: the best possible expected error lies between ${f(extra.lower)} and ${f(extra.upper)} km (proven bounds), so the fast version's safety margin costs between ${f(extra.extraMin * 100, 3)}% and ${f(extra.extraMax * 100, 3)}% extra error.`,
        );
    } else if (lp && lp.status === 'skipped') {
      findings.push(
        `- ε = ${e}: the optimised mechanism on the full ${citySide} x ${citySide} city is skipped at this ε (parameter fullLpEpsilons): at small ε its solve takes many more rounds. The coarse city below compares all mechanisms on one grid at this ε.`,
      );
    } else if (lp && !exists(lp)) {
      findings.push(
        `- ε = ${e}: the optimised mechanism on the full ${citySide} x ${citySide} city was not computed (${cityRowNote(lp)}). Solved in one piece it has ${citySide ** 4} unknowns, beyond the solver's 2 GiB of memory; solved in parts it takes minutes (parameters fullLp, fullLpTimeLimit). The coarse city below compares all mechanisms on one grid.`,
      );
    }
  }
  for (const e of cityEpsList) {
    const coarseRows = city.filter((r) => r.eps === e && !r.grid.full);
    const lp = coarseRows.find((r) => r.mechanism === 'lp-spanner' && exists(r));
    const lpx = coarseRows.find((r) => r.mechanism === 'lp-exact' && exists(r));
    const plc = coarseRows.find((r) => r.mechanism === 'planar-laplace' && !r.remap);
    const tc = coarseRows.find((r) => r.mechanism === 'tight' && !r.remap && exists(r));
    if (lp && plc) {
      findings.push(
        `- ε = ${e}, coarse city: the fast optimised mechanism's error ${f(lp.error)} km is ${rel(lp.error!, plc.error!)} planar Laplace's ${f(plc.error)} km${tc ? ` and ${rel(lp.error!, tc.error!)} tight-constraints' ${f(tc.error)} km` : ''}. The privacy check of its channel ${lp.effectiveEps !== null && lp.effectiveEps <= e * (1 + 1e-9) ? `confirms it is private at ε = ${e}` : 'FAILS'} (effective ε ${f(lp.effectiveEps)}).`,
      );
      if (tc && lp.error! > tc.error!)
        findings.push(
          `- So the fast optimised mechanism is NOT the best here: its safety margin between nearby cells guarantees privacy but leaves out private mechanisms such as tight-constraints (its effective ε ${f(lp.effectiveEps)} < ${e} shows unused privacy budget). It is the best only among mechanisms with that margin; the best possible error is at most ${f(tc.error)} km.${lpx ? '' : ' The exact optimisation (parameter exactLp) gives the best possible.'}`,
        );
      else if (plc.error! > lp.error!)
        findings.push(
          `- The optimised mechanism exploits the prior (it can pull reports towards where people live); planar Laplace ignores it.`,
        );
    }
    if (lpx)
      findings.push(
        `- ε = ${e}, coarse city, optimised exactly (the best possible expected distance): ${f(lpx.error)} km (effective ε ${f(lpx.effectiveEps)}); the fast version's safety margin cost ${lp ? f(((lp.error! - lpx.error!) / lpx.error!) * 100, 3) : '?'}% extra error.${tc ? ` It is ${rel(lpx.error!, tc.error!)} tight-constraints' ${f(tc.error)} km${lpx.error! <= tc.error! * (1 + 1e-9) ? ', as it must be: tight-constraints is one of the private mechanisms it searches' : ', which contradicts its optimality and needs investigating'}.` : ''}`,
      );
  }
  return findings;
}

/** The geo study's findings, in words. */
export function geoFindingWords(g: GeoFindings): string[] {
  return [...gridFindings(g.size, g.grid, g.points), ...(g.city ? cityFindings(g.city) : [])];
}

/** The mathematics behind the geo study's findings. */
export function geoDetailWords(g: GeoFindings): string[] {
  return [...gridDetails(g.points), ...cityDetails(g.city)];
}
