/**
 * The study report (docs/app.md, "The study report"; `mechstudio report`): one typed record of everything a
 * privacy officer signs off, built from a project as it is kept and the facts the Node side measured when the
 * report was made (each input file's size and SHA-256 as read now, each kept channel's privacy check run again).
 * Rendered to one self-contained HTML page in src-shared/report/report-html.ts, with its words in
 * src-shared/charts/report-words.ts; nothing here is prose.
 *
 * What a kept value is worth is said per value: a mechanism's privacy rests on its construction, on the privacy
 * check kept in the project (recorded, not re-run) or on the check run again now (`recheck`); an LP's bound is the
 * one its result records (certified by the solve that produced it; the report does not solve again).
 */
import {
  budgetOf,
  spentOn,
  type AuditResult,
  type CheckResult,
  type CompareResult,
  type FileRecord,
  type KeptResult,
  type LpResult,
  type MechanismResult,
  type PriorPointsImport,
  type Project,
  type Release,
} from '../protocol/index';

/** A file as read when the report was made: its size and SHA-256, or why it could not be read. */
export type ReportFile = { role: string; name: string } & (
  { ok: true; size: number; sha256: string } | { ok: false; problem: string }
);

interface ReportInput {
  kind: 'domain' | 'prior';
  id: string;
  /** The domain text or prior form as the project gives it (a metric matrix or a vector: its size only). */
  form: string;
  /** A prior's domain. */
  domain?: string;
  /** A prior imported from points: the box, smoothing and grid binning it was made with. */
  points?: PriorPointsImport;
  /** The file a prior was read from, as recorded when it was read (its name, size and SHA-256). */
  source?: FileRecord;
}

/** The privacy check of a kept channel, run again when the report was made. */
export type Recheck =
  | { kind: 'checked'; check: Pick<CheckResult, 'private' | 'effectiveEpsilon' | 'epsilon'> }
  | { kind: 'not-rechecked'; reason: 'no-channel' | 'not-kept-here' | 'not-computed' | 'no-checker' }
  | { kind: 'failed'; message: string };

export interface ReportMechanism {
  id: string;
  kind: string;
  domain: string;
  epsilon: number;
  prior?: string;
  loss?: string;
  remap: boolean;
  /**
   * 'current' and 'stale' as the app decides them (the inputs' hash); 'kept' when the report's maker did not compare.
   */
  state: 'not-computed' | 'current' | 'stale' | 'kept';
  computedAt?: string;
  result?: Pick<
    MechanismResult,
    'guaranteedEpsilon' | 'effectiveEpsilon' | 'utility' | 'expectedLoss' | 'leakage' | 'rows' | 'cols' | 'exists'
  > & {
    lp?: LpResult;
    unit: string;
  };
  /** The privacy check kept with the result (as recorded in the project). */
  keptCheck?: Pick<CheckResult, 'private' | 'effectiveEpsilon' | 'epsilon'>;
  recheck: Recheck;
}

export interface ReportComparison {
  id: string;
  epsilon: number;
  epsilonText?: string;
  computedAt?: string;
  result: CompareResult | null;
}

export interface ReportAudit {
  id: string;
  domain: string;
  epsilon: number;
  epsilonText: string;
  confidence: number;
  file?: FileRecord;
  example?: string;
  computedAt?: string;
  result: AuditResult | null;
}

export interface ReportBudgetRow {
  population: string;
  releases: number;
  spent: number;
  budget: number | null;
}

export interface StudyReport {
  title: string;
  description?: string;
  /** ISO 8601 date and time the report was made, and by which version of the tool. */
  generatedAt: string;
  tool: string;
  /** The project file as read (absent: a project held only in the app's memory, never saved). */
  projectFile?: ReportFile;
  inputs: ReportInput[];
  files: ReportFile[];
  mechanisms: ReportMechanism[];
  comparisons: ReportComparison[];
  releases: Release[];
  audits: ReportAudit[];
  budget: ReportBudgetRow[];
  /** The budget's eps for every population, when one is set. */
  budgetAll: number | null;
}

/** What the Node side measured for the report (files read now, checks run now) and who made it. */
interface ReportFacts {
  generatedAt: string;
  tool: string;
  projectFile?: ReportFile;
  files: ReportFile[];
  /** Per mechanism id: its channel's check run again (absent: not re-checked, `no-checker`). */
  rechecks: Record<string, Recheck>;
  /** Per mechanism id, the app's view of its kept result (absent: 'kept', not compared with the inputs). */
  states?: Record<string, 'current' | 'stale'>;
}

/** A form shown in the report: text as given (at most 200 characters), an inline matrix or vector by its size. */
function formText(v: unknown): string {
  if (typeof v === 'string') return v.length > 200 ? `${v.slice(0, 200)}...` : v;
  const o = v as { kind?: string; points?: unknown[]; values?: unknown[]; matrix?: unknown[] };
  const n = o.points?.length ?? o.values?.length ?? o.matrix?.length;
  return `${o.kind ?? 'inline'}${n !== undefined ? ` (${n} entries)` : ''}`;
}

function keptMechanism(kept: KeptResult | undefined): Pick<ReportMechanism, 'result' | 'keptCheck' | 'computedAt'> {
  const r = kept?.result;
  if (!kept || r?.type !== 'mechanism') return {};
  const unit = r.domain.startsWith('grid:') ? 'km' : 'd';
  return {
    ...(kept.computedAt ? { computedAt: kept.computedAt } : {}),
    result: {
      guaranteedEpsilon: r.guaranteedEpsilon,
      effectiveEpsilon: r.effectiveEpsilon,
      utility: r.utility,
      expectedLoss: r.expectedLoss ?? null,
      leakage: r.leakage ?? null,
      rows: r.rows,
      cols: r.cols,
      exists: r.exists,
      ...(r.lp ? { lp: r.lp } : {}),
      unit,
    },
    ...(kept.check
      ? {
          keptCheck: {
            private: kept.check.private,
            effectiveEpsilon: kept.check.effectiveEpsilon,
            epsilon: kept.check.epsilon,
          },
        }
      : {}),
  };
}

/** Every population a release spent on, with its releases, eps spent and budget (in the order first released). */
function budgetRows(project: Pick<Project, 'releases' | 'privacyBudget'>): ReportBudgetRow[] {
  const order: string[] = [];
  for (const r of project.releases ?? []) if (!order.includes(r.population)) order.push(r.population);
  for (const p of Object.keys(project.privacyBudget?.populations ?? {})) if (!order.includes(p)) order.push(p);
  return order.map((population) => ({
    population,
    releases: (project.releases ?? []).filter((r) => r.population === population).length,
    spent: spentOn(project.releases, population),
    budget: budgetOf(project.privacyBudget, population),
  }));
}

/** The report's record of a project and what was measured for it now. */
export function buildStudyReport(project: Project, facts: ReportFacts): StudyReport {
  const inputs: ReportInput[] = [
    ...project.domains.map((d): ReportInput => ({ kind: 'domain', id: d.id, form: formText(d.domain) })),
    ...project.priors.map((p): ReportInput => ({
      kind: 'prior',
      id: p.id,
      domain: p.domain,
      form: formText(p.prior),
      ...(p.points ? { points: p.points } : {}),
      ...(p.source ? { source: p.source } : {}),
    })),
  ];
  const mechanisms = project.mechanisms.map((m): ReportMechanism => {
    const kept = project.results?.[m.id];
    const state = kept ? (facts.states?.[m.id] ?? 'kept') : 'not-computed';
    return {
      id: m.id,
      kind: m.kind,
      domain: m.domain,
      epsilon: m.epsilon,
      ...(m.prior ? { prior: m.prior } : {}),
      ...(m.loss !== undefined ? { loss: formText(m.loss) } : {}),
      remap: m.remap === true,
      state,
      ...keptMechanism(kept),
      recheck: kept
        ? (facts.rechecks[m.id] ?? { kind: 'not-rechecked', reason: 'no-checker' })
        : { kind: 'not-rechecked', reason: 'not-computed' },
    };
  });
  return {
    title: project.name,
    ...(project.description ? { description: project.description } : {}),
    generatedAt: facts.generatedAt,
    tool: facts.tool,
    ...(facts.projectFile ? { projectFile: facts.projectFile } : {}),
    inputs,
    files: facts.files,
    mechanisms,
    comparisons: (project.comparisons ?? []).map((c) => ({
      id: c.id,
      epsilon: c.epsilon,
      ...(c.epsilonText ? { epsilonText: c.epsilonText } : {}),
      ...(c.computedAt ? { computedAt: c.computedAt } : {}),
      result: c.result ?? null,
    })),
    releases: project.releases ?? [],
    audits: (project.audits ?? []).map((a) => ({
      id: a.id,
      domain: a.domain,
      epsilon: a.epsilon,
      epsilonText: a.epsilonText,
      confidence: a.confidence,
      ...(a.file ? { file: a.file } : {}),
      ...(a.example ? { example: a.example } : {}),
      ...(a.computedAt ? { computedAt: a.computedAt } : {}),
      result: a.result ?? null,
    })),
    budget: budgetRows(project),
    budgetAll: project.privacyBudget?.all ?? null,
  };
}
