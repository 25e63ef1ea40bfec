/**
 * CLI output: the documented --json objects (exactly these keys; docs/cli.md,
 * "`--json` keys", lists them) and the readable summaries.
 */
import {
  LP_METHOD_WORDS,
  NO_BOUND_YET,
  candidateNoteWords,
  candidateWords,
  chosenWords,
  isBound,
  lpResultWords,
  relaxationWords,
  stoppedByWords,
} from '../../src-shared/charts/lp-words';
import {
  gapIsExact,
  lpNotSolved,
  type JobRequest,
  type JobResult,
  type LpResult,
  type MatrixPayload,
  type MechanismResult,
  type RemapResult,
} from '../../src-shared/protocol/index';
import { fmt, MEASURE_FIGURES } from '../../src-shared/charts/result-table';
import { compareTableText } from '../../src-shared/charts/compare-report';
import {
  auditNoteWords,
  auditTestFormula,
  auditTestText,
  auditVerdictText,
  detectionLines,
} from '../../src-shared/charts/audit-words';
import { factRows } from '../../src-shared/charts/fact-rows';
import { resultNoteLines } from '../../src-shared/charts/note-words';
import { mechanismNotesText } from '../../src-shared/charts/mechanism-notes';

/** Largest matrix (each side) the CLI prints to a terminal. */
const MAX_PRINT_SIDE = 200;
/** Printed without --print when both sides are at most this. */
const AUTO_PRINT_SIDE = 12;

function pick<T extends object>(obj: T, keys: (keyof T)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k as string] = obj[k];
  return out;
}

/** The --json object of a command (SPEC §8). */
export function jsonFor(req: JobRequest, r: JobResult): Record<string, unknown> {
  switch (r.type) {
    case 'mechanism': {
      if (!r.exists) return { exists: false, minZ: r.minZ ?? null, minZAt: r.minZAt ?? null };
      const o: Record<string, unknown> = {
        exists: true,
        rows: r.rows,
        cols: r.cols,
        utility: r.utility,
        effectiveEpsilon: r.effectiveEpsilon,
        guaranteedEpsilon: r.guaranteedEpsilon,
      };
      if (req.type === 'mechanism' && (req.loss !== undefined || r.defaultLoss !== undefined))
        o.expectedLoss = r.expectedLoss ?? null;
      // no --loss: the loss an optimal LP on a grid minimised (the expected distance)
      if (r.defaultLoss !== undefined) o.loss = r.defaultLoss;
      // e.g. why effectiveEpsilon is null, or that the stored channel is not private
      const note = mechanismNotesText(r);
      if (note !== undefined) o.note = note;
      if (r.lp) {
        // The optimal LP's flat keys (scripts rely on these names) and the whole typed record.
        o.lpModel = r.lp.model;
        o.lpMethod = r.lp.method;
        o.lowerBound = r.lp.lowerBound;
        o.gap = r.lp.gap;
        o.exactLowerBound = r.lp.exactLowerBound;
        // what was returned, in the words the readable output shows (one plain line when no bound was certified)
        o.result = lpResultWords(r.lp);
        o.chosen = r.lp.chosen ?? 'lp';
        // each candidate's note in the words the readable output says it (the typed note is in `lp`)
        o.candidates = (r.lp.candidates ?? []).map((c) =>
          c.note === undefined ? c : { ...c, note: candidateNoteWords(c.note) },
        );
        o.lp = lpJson(r.lp);
      }
      if (r.remap) {
        // The remapped channel's losses (flat keys for scripts, and the typed record).
        o.originalLoss = r.remap.originalLoss;
        o.remappedLoss = r.remap.remappedLoss;
        o.improvement = r.remap.improvement;
        o.remap = r.remap;
      }
      return o;
    }
    case 'apply':
      return {
        rows: r.rows,
        header: r.header,
        forRelease: r.forRelease,
        mode: r.mode,
        domain: r.domain,
        outputs: r.outputs,
        out: r.csvPath,
        timeMs: r.timeMs,
        ...(r.effectiveEpsilon !== undefined
          ? { checkedEpsilon: r.checkedEpsilon ?? null, effectiveEpsilon: r.effectiveEpsilon }
          : {}),
        ...(r.remap ? { remap: r.remap } : {}),
      };
    case 'audit':
      return {
        verdict: r.verdict,
        epsilon: r.epsilon,
        confidence: r.confidence,
        epsilonLowerBound: r.epsilonLowerBound,
        witness: r.witness,
        samples: r.samples,
        pairsTested: r.pairsTested,
        selectionSamples: r.selectionSamples,
        estimationSamples: r.estimationSamples,
        domain: r.domain,
        mode: r.mode,
        detection: r.detection,
        tested: r.tested,
        // why nothing was tested, in the words the readable output says it
        ...(r.note !== undefined ? { note: auditNoteWords(r.note) } : {}),
      };
    case 'measure': {
      const o = pick(r, [...MEASURE_FIGURES]);
      if (req.type === 'measure' && req.loss !== undefined) o.expectedLoss = r.expectedLoss ?? null;
      if (req.type === 'measure' && req.epsilon !== undefined) o.effectiveEpsilon = r.effectiveEpsilon ?? null;
      return o;
    }
    case 'check':
      return { private: r.private, epsilon: r.epsilon, effectiveEpsilon: r.effectiveEpsilon, violations: r.violations };
    case 'capacity':
      return { multiplicative: r.multiplicative, additive: r.additive };
    case 'regular':
      return {
        regular: r.regular,
        utilityBound: r.utilityBound,
        leakageBound: r.leakageBound,
        ...(r.regularFrom !== undefined ? { regularFrom: r.regularFrom } : {}),
        // how it was decided, typed (note-words.ts words it for the readable output)
        ...(r.regularity ? { regularity: r.regularity } : {}),
      };
    case 'threshold':
      return { epsilon: r.epsilon, ...(r.notes ? { notes: r.notes } : {}) };
    case 'vertices':
      return { vertices: r.vertices, kernels: r.kernels };
    case 'compare': {
      // the figures, without the map data (prior, focus rows)
      const { prior: _p, ...rest } = r;
      return { ...rest, rows: r.rows.map(({ focusRow: _f, ...row }) => row) };
    }
    default:
      return r as unknown as Record<string, unknown>;
  }
}

/** The --json `lp` object (docs/cli.md, "`--json` keys"): the typed LP record without its convergence history. */
function lpJson(lp: LpResult): Omit<LpResult, 'history'> {
  const { history: _history, ...rest } = lp;
  return rest;
}

/** The readable lines of an optimal LP. */
function lpLines(lp: LpResult): [string, string | undefined][] {
  const model =
    lp.model === 'spanner'
      ? `spanner (delta ${fmt(lp.delta)})`
      : lp.model === 'exact'
        ? 'exact (all pairs)'
        : 'edges (graph edges, equivalent to all pairs)';
  const pct = (g: number): string => `${fmt(g * 100, 3)}%`;
  // Over the decomposition's limits with a time limit: the best cheap candidate, no LP built (jobs/best-candidate.ts).
  const unsolved = lpNotSolved(lp);
  // Certificate words only for a bound above 0 (losses are >= 0): a decomposition stopped before its pricing gave one
  // reports 0.
  const bounded = isBound(lp.exactLowerBound ?? lp.lowerBound);
  return [
    [
      'LP model',
      `${model}; ${lp.modelChoice === 'auto' ? `chosen automatically: ${lp.modelReason}` : lp.modelReason === 'requested' ? 'as requested' : lp.modelReason}`,
    ],
    ['LP method', LP_METHOD_WORDS[lp.method]],
    ['result', lpResultWords(lp)],
    [
      'chosen',
      lp.chosen === undefined
        ? undefined
        : `${chosenWords(lp)}${lp.chosen !== 'lp' && lp.lpObjective != null ? ` (the LP's channel: ${fmt(lp.lpObjective)})` : ''}`,
    ],
    [
      'candidates',
      lp.candidates?.length
        ? lp.candidates.map((c) => `${candidateWords(c, fmt)} (${fmt(c.time, 3)} s)`).join('; ')
        : undefined,
    ],
    [
      'lower bound',
      unsolved
        ? 'none: the LP was not solved (no bound reached within the limit)'
        : isBound(lp.lowerBound)
          ? `${fmt(lp.lowerBound)} (certified, ${lp.model} model)`
          : NO_BOUND_YET,
    ],
    [
      'exact lower bound',
      lp.exactLowerBound === null
        ? unsolved
          ? 'none'
          : 'none: the spanner model bounds only its own optimum'
        : isBound(lp.exactLowerBound)
          ? `${fmt(lp.exactLowerBound)} (certified: no eps*d-private mechanism does better)`
          : NO_BOUND_YET,
    ],
    ['bounded by', lp.relaxation ? relaxationWords(lp.relaxation, fmt, (ms) => `${fmt(ms / 1000, 3)} s`) : undefined],
    [
      'gap',
      bounded
        ? `${pct(lp.gap)} (expected loss - ${lp.exactLowerBound !== null ? 'exact lower bound' : 'lower bound'}) / expected loss`
        : `${pct(lp.gap)}: with no bound above 0 it says nothing`,
    ],
    ['LP rounds', `${lp.rounds} in ${fmt(lp.timeMs / 1000, 3)} s (stopped: ${lp.stoppedBy}: ${stoppedByWords(lp)})`],
    [
      'pricing',
      lp.pricingWorkers === undefined
        ? undefined
        : `on ${lp.pricingWorkers} queue worker${lp.pricingWorkers === 1 ? '' : 's'}`,
    ],
    [
      'coarse start',
      lp.coarseStart
        ? `duals of the ${lp.coarseStart.rows} x ${lp.coarseStart.cols} grid of ${fmt(lp.coarseStart.cellSize)}-unit cells (optimum ${fmt(lp.coarseStart.objective)}, gap ${pct(lp.coarseStart.gap)}, ${fmt(lp.coarseStart.timeMs / 1000, 3)} s${lp.coarseStart.levels > 0 ? `, itself from ${lp.coarseStart.levels} coarser grid${lp.coarseStart.levels > 1 ? 's' : ''}` : ''})`
        : undefined,
    ],
    [
      'time limit',
      unsolved && lp.timeLimitReached
        ? 'came before every candidate was tried (see candidates)'
        : lp.timeLimitReached && !bounded
          ? 'stopped by the time limit: the best private mechanism found, with no bound on the best possible'
          : lp.timeLimitReached
            ? `stopped by the time limit: the best private mechanism found, within ${pct(lp.gap)} of ${gapIsExact(lp) ? 'the best possible' : "the model's optimum"}`
            : undefined,
    ],
  ];
}

/** The readable lines of a remap: original vs remapped expected loss, and the LP bound when this job has one. */
function remapLines(m: RemapResult): [string, string | undefined][] {
  const pct =
    m.originalLoss !== null && m.originalLoss > 0 && m.improvement !== null
      ? ` (${fmt((m.improvement / m.originalLoss) * 100, 3)}% less)`
      : '';
  return [
    [
      'remap',
      `outputs replaced by the guess of least expected loss under the prior (${m.method}); ${m.guessesUsed} distinct guesses used`,
    ],
    [
      'original loss',
      m.originalLoss === null ? `n/a: ${m.originalDefinition}` : `${fmt(m.originalLoss)} (face value: output = guess)`,
    ],
    [
      'remapped loss',
      `${fmt(m.remappedLoss)}${pct}${m.valueSlack > 0 ? ` (true value within +${fmt(m.valueSlack)})` : ''}`,
    ],
    [
      'LP bound',
      isBound(m.lpExactLowerBound)
        ? `${fmt(m.lpExactLowerBound)} (certified, exact optimum); remapped loss is within ${fmt(m.remappedLoss - m.lpExactLowerBound)} of it`
        : isBound(m.lpLowerBound)
          ? `${fmt(m.lpLowerBound)}: ${m.lpNote}`
          : m.lpLowerBound !== null || m.lpExactLowerBound !== null
            ? NO_BOUND_YET
            : m.lpNote,
    ],
  ];
}

/**
 * The domain an apply without --domain names (the channel's row labels are the secrets: data/apply.ts
 * channelLabelsDomain).
 */
const CHANNEL_ROWS_DOMAIN = "the channel's rows";

/** What an applied channel was checked private at, before it was released. */
function privacyCheckedText(r: Extract<JobResult, { type: 'apply' }>): string {
  const eff = `effective eps ${fmt(r.effectiveEpsilon!)}`;
  if (r.checkedEpsilon != null)
    return `checked ${fmt(r.checkedEpsilon)}*d-private on ${r.domain} before release (${eff})`;
  if (r.domain === CHANNEL_ROWS_DOMAIN)
    return `checked before release: no output rules a secret out (largest ln ratio between two secrets ${fmt(r.effectiveEpsilon!)}; --domain and --epsilon check eps*d)`;
  return `checked before release: ${eff} on ${r.domain} (--epsilon E refuses it above E)`;
}

function lines(pairs: [string, string | undefined | false][]): string {
  const w = Math.max(...pairs.map(([k]) => k.length));
  return pairs
    .filter((p): p is [string, string] => typeof p[1] === 'string')
    .map(([k, v]) => `${k.padEnd(w)}  ${v}`)
    .join('\n');
}

/**
 * A mechanism's construction facts in words (the rows the app shows under "How it was computed"), indented under a
 * heading.
 */
function factLines(r: MechanismResult): string {
  const rows = factRows(r.facts, (v) => fmt(v), r.factsAsRecorded);
  return rows.length ? `\nhow it was computed:\n${rows.map((f) => `  ${f.label}: ${f.value}`).join('\n')}` : '';
}

/** The readable summary of a mechanism (or why it does not exist). */
function mechanismReadable(req: JobRequest, r: MechanismResult): string {
  if (!r.exists) {
    return `The ${r.kind} mechanism does not exist on ${r.domain} at eps = ${fmt(r.epsilon)}: z has a negative entry (min z = ${fmt(r.minZ)} at ${r.minZAt}).${r.note ? `\n${r.note}` : ''}`;
  }
  return (
    lines([
      ['mechanism', `${r.kind} on ${r.domain}, eps = ${fmt(r.epsilon)}`],
      ['size', `${r.rows} secrets x ${r.cols} outputs`],
      ['guarantee', `${fmt(r.guaranteedEpsilon)} * d-private (${r.guarantee})`],
      ['effective eps', r.effectiveEpsilon === null ? 'not computed' : fmt(r.effectiveEpsilon)],
      [
        'utility',
        `${fmt(r.utility)} (binary gain, optimal remap, ${req.type === 'mechanism' && req.prior ? 'given' : 'uniform'} prior)`,
      ],
      ['leakage', r.leakage === undefined || r.leakage === null ? undefined : `${fmt(r.leakage)} bits`],
      [
        'expected loss',
        r.expectedLoss === undefined || r.expectedLoss === null
          ? undefined
          : `${fmt(r.expectedLoss)}${r.defaultLoss ? ` (${r.defaultLoss}: no --loss given, an optimal LP on a grid minimises the expected distance)` : ''}`,
      ],
      ...(r.lp ? lpLines(r.lp) : []),
      ...(r.remap ? remapLines(r.remap) : []),
      ['written', r.csvPath],
      ['note', mechanismNotesText(r)],
    ]) + factLines(r)
  );
}

/** The readable summary of a release (apply). */
function applyReadable(r: Extract<JobResult, { type: 'apply' }>): string {
  return lines([
    ['released', `${r.rows} rows (one output per input row, in order) to ${r.csvPath}`],
    [
      'secrets',
      `${r.mode === 'points' ? 'points mapped to cells of' : 'labels of'} ${r.domain}; ${r.outputs} possible outputs`,
    ],
    [
      'header',
      r.header
        ? 'line 1 of the secrets CSV is a header (not released)'
        : 'none: line 1 of the secrets CSV is a secret (released)',
    ],
    ...(r.effectiveEpsilon !== undefined ? [['privacy', privacyCheckedText(r)] as [string, string]] : []),
    [
      'generator',
      r.forRelease
        ? 'node:crypto (cryptographically secure)'
        : 'SEEDED: NOT FOR RELEASE (the file starts with a comment saying so)',
    ],
    ...(r.remap ? remapLines(r.remap) : []),
    ['time', `${fmt(r.timeMs / 1000, 3)} s (${fmt(r.rows / Math.max(r.timeMs / 1000, 1e-9), 3)} rows/s)`],
  ]);
}

export function readable(req: JobRequest, r: JobResult): string {
  switch (r.type) {
    case 'mechanism':
      return mechanismReadable(req, r);
    case 'apply':
      return applyReadable(r);
    case 'measure':
      return lines([
        ['channel', `${r.rows} secrets x ${r.cols} outputs`],
        ['prior vulnerability', fmt(r.vulnerability)],
        ['posterior vulnerability', fmt(r.posteriorVulnerability)],
        ['min-entropy leakage', `${fmt(r.leakage)} bits`],
        ['utility', `${fmt(r.utility)} (chance the best guess is the true value)`],
        ['multiplicative capacity', `${fmt(r.multiplicativeCapacity)} (min-capacity ${fmt(r.minCapacity)} bits)`],
        ['additive capacity', fmt(r.additiveCapacity)],
        ['expected loss', r.expectedLoss === undefined || r.expectedLoss === null ? undefined : fmt(r.expectedLoss)],
        [
          'expected distance error',
          r.qualityLoss === undefined || r.qualityLoss === null ? undefined : fmt(r.qualityLoss),
        ],
        ['effective eps', r.effectiveEpsilon === undefined ? undefined : fmt(r.effectiveEpsilon)],
      ]);
    case 'check': {
      const head = r.private
        ? `private: the channel is eps*d-private for eps = ${fmt(r.epsilon)} (effective eps ${fmt(r.effectiveEpsilon)})`
        : `NOT private: effective eps ${fmt(r.effectiveEpsilon)} exceeds eps = ${fmt(r.epsilon)}`;
      const v = r.violations.map((p) => `  C[${p.x}][${p.y}] / C[${p.xp}][${p.y}] = ${fmt(p.ratio)}`);
      return [head, ...(v.length ? ['worst violating pairs:', ...v] : [])].join('\n');
    }
    case 'audit':
      return [
        auditVerdictText(r),
        `witness: ${r.witness ? auditTestText(r.witness) : 'none'}`,
        ...(r.witness ? [`  the formula: ${auditTestFormula(r.witness)}`] : []),
        `samples: ${r.samples} (${r.selectionSamples} chose ${r.pairsTested} pair${r.pairsTested === 1 ? '' : 's'} and events, ${r.estimationSamples} estimated them; ${r.secretsSeen} secrets seen) on ${r.domain}`,
        `samples per secret to detect a violation (pair at distance ${fmt(r.detection.distance)}, event probability ${fmt(r.detection.baseProbability, 3)} under b):`,
        ...detectionLines(r),
        // a not-tested verdict's line already says why
        ...(r.note !== undefined && r.verdict !== 'not-tested' ? [`note: ${auditNoteWords(r.note)}`] : []),
      ].join('\n');
    case 'capacity':
      return lines([
        ['domain', `${r.domain}, eps = ${fmt(r.epsilon)}`],
        ['multiplicative capacity', fmt(r.multiplicative)],
        ['additive capacity', fmt(r.additive)],
        ['written', r.csvPath],
      ]);
    case 'regular':
      return r.regular
        ? lines([
            ['regular', `yes (eps = ${fmt(r.epsilon)} on ${r.domain})`],
            ['utility bound', `${fmt(r.utilityBound)} (every eps*d-private mechanism, binary gain)`],
            ['leakage bound', `${fmt(r.leakageBound)} bits`],
          ])
        : `not regular at eps = ${fmt(r.epsilon)} on ${r.domain}: the best-possible bounds (SPEC §5) do not apply (no mu >= 0 solves mu Phi = pi)` +
            (r.regularFrom
              ? `; regular from about eps = ${fmt(r.regularFrom.epsilon)} (regular there, not at ${fmt(r.regularFrom.below)})`
              : r.regularFrom === null
                ? '; not regular up to 64 times this eps either (or the domain is too large to search)'
                : '');
    case 'threshold':
      return r.epsilon === null
        ? `no tight-constraints mechanism on ${r.domain} for eps in [${fmt(r.from)}, ${fmt(r.to)}] (step ${fmt(r.step)})`
        : `smallest eps (step ${fmt(r.step)}) with a tight-constraints mechanism on ${r.domain}: ${fmt(r.epsilon)}${resultNoteLines(
            r,
          )
            .map((l) => `\n${l}`)
            .join('')}`;
    case 'vertices': {
      const head = `${r.vertices} vertices of the eps*d-private posterior polytope on ${r.domain} (eps = ${fmt(r.epsilon)})${r.kernels === null ? '' : `; ${r.kernels} kernel mechanisms`}`;
      const list = r.list && r.list.length <= 50 ? r.list.map((v) => `  (${v.map((x) => fmt(x, 4)).join(', ')})`) : [];
      return [head, ...list].join('\n');
    }
    case 'compare': {
      const t = compareTableText(r);
      const w = t.header.map((h, j) => Math.max(h.length, ...t.rows.map((x) => x[j]!.length)));
      const line = (cells: string[]): string =>
        cells.map((c, j) => (j === 0 ? c.padEnd(w[j]!) : c.padStart(w[j]!))).join('  ');
      return [
        `compare on ${r.domain}, eps = ${fmt(r.epsilon)} per ${r.unit === 'd' ? 'unit of distance' : r.unit}${r.baseline !== null ? `; planar Laplace baseline ${fmt(r.baseline, 4)} ${r.unit}` : ''}`,
        line(t.header),
        ...t.rows.map(line),
        ...t.notes.map((n) => `note: ${n}`),
      ].join('\n');
    }
    default:
      return JSON.stringify(r, null, 2);
  }
}

function matrixText(m: MatrixPayload): string {
  const cells = (i: number): string[] => Array.from({ length: m.cols }, (_, j) => fmt(m.data[i * m.cols + j]!, 4));
  const rows = [['', ...m.colLabels], ...Array.from({ length: m.rows }, (_, i) => [m.rowLabels[i]!, ...cells(i)])];
  const w = Array.from({ length: m.cols + 1 }, (_, j) => Math.max(...rows.map((r) => r[j]!.length)));
  return rows.map((r) => r.map((c, j) => (j === 0 ? c.padEnd(w[j]!) : c.padStart(w[j]!))).join('  ')).join('\n');
}

/** The matrix (small), or the rule saying why it is not printed and how to export it. */
export function printMatrixRule(req: JobRequest, r: JobResult, print: boolean): string | null {
  if (r.type !== 'mechanism' || !r.exists) return null;
  const big = r.rows > MAX_PRINT_SIDE || r.cols > MAX_PRINT_SIDE;
  if (big) {
    if (req.type === 'mechanism' && req.out) return null;
    return `(the ${r.rows} x ${r.cols} matrix is larger than ${MAX_PRINT_SIDE} x ${MAX_PRINT_SIDE} and is not printed; export it with --out FILE.csv)`;
  }
  const auto = r.rows <= AUTO_PRINT_SIDE && r.cols <= AUTO_PRINT_SIDE;
  if ((print || auto) && r.matrix) return '\n' + matrixText(r.matrix);
  if (!auto && !print && !(req.type === 'mechanism' && req.out))
    return `(matrix not shown: add --print to show the ${r.rows} x ${r.cols} matrix, or --out FILE.csv to export it)`;
  return null;
}
