/**
 * Project files (JSON, versioned: project-migration.ts reads a file of an
 * earlier version onto the current one): named domains, priors and mechanisms, and
 * the analyses run on them. Shared by the CLI (`mechstudio run`), the main
 * process (open/save) and the renderer (editing). Priors and losses may use
 * the CLI text forms (uniform, product:..., comma list, csv:FILE with FILE
 * relative to the project file); file forms are resolved on the Node side
 * before a run-project job is sent.
 */
import { z } from 'zod';
import { projectCaseStudySchema } from './casestudy';
import { pointsBinningSchema, remapNeedsLoss } from './remap';
import { mechanismSpecShape } from './mechanism-spec';
import { checkResultSchema, jobResultSchema } from './results';
import { migrateProject, PROJECT_VERSION } from './project-migration';
import { domainInputSchema, epsilonSchema, lossInputSchema, lpOptionsOnlyForOptimal, priorInputSchema } from './common';
import { sweepRangeShape } from './sweep';
import { privacyBudgetSchema, releaseSchema } from './releases';
import { fileRecordSchema, projectAuditSchema, projectComparisonSchema } from './study-items';

const id = z
  .string()
  .min(1, 'id is empty')
  .max(80)
  .regex(/^[A-Za-z0-9_.-]+$/, 'ids use letters, digits, _ . - only (they name output files)');

/** A prior as stored in a project: the protocol form or the CLI text form. */
const projectPriorSchema = z.union([priorInputSchema, z.string().min(1).max(1_000_000)]);
/** A loss as stored in a project: the protocol form or csv:FILE. */
const projectLossSchema = z.union([
  lossInputSchema,
  z.string().regex(/^csv:.+/, 'loss must be bin, nib, dist, dist2 or csv:FILE'),
]);

const projectDomainSchema = z.strictObject({
  id,
  name: z.string().optional(),
  /** SPEC §8 domain text (csv:FILE and graph:FILE relative to the project file) or an inline metric. */
  domain: domainInputSchema,
  description: z.string().optional(),
});

/**
 * How a prior was imported from points (the app's points import, as
 * `mechstudio apply --prior points:FILE` makes it): the file's name, the box
 * and smoothing asked for, and the grid binning, so that point secrets
 * (x,y or lat,lon) are released on the same cells.
 */
const priorPointsImportSchema = z.strictObject({
  file: z.string().max(4096),
  binning: pointsBinningSchema,
  /** The box as given (west,south,east,north), or null for the data's extent. */
  box: z.tuple([z.number(), z.number(), z.number(), z.number()]).nullable(),
  smoothing: z.number().min(0),
  /** Points inside the grid and outside it. */
  inside: z.int().min(0),
  outside: z.int().min(0),
});
export type PriorPointsImport = z.infer<typeof priorPointsImportSchema>;

const projectPriorEntrySchema = z.strictObject({
  id,
  domain: id,
  prior: projectPriorSchema,
  /** Set when the prior was imported from points (cleared by any other edit of the prior). */
  points: priorPointsImportSchema.optional(),
  /**
   * The file the prior was read from (a CSV of weights or a points file): its name, size and SHA-256 as read, for the
   * study report's provenance. Set by the app's import and by the host when it resolves csv:/points: forms; cleared by
   * any other edit of the prior.
   */
  source: fileRecordSchema.optional(),
  description: z.string().optional(),
});

const projectMechanismSchema = z
  .strictObject({
    id,
    // A mechanism spec (kind, eps, the optimal LP's options, remap) whose domain, prior and loss are named by id.
    ...mechanismSpecShape,
    domain: id,
    /** Prior id (optimal mechanisms minimise loss under it; utility is reported under it). */
    prior: id.optional(),
    loss: projectLossSchema.optional(),
    description: z.string().optional(),
  })
  .refine(...lpOptionsOnlyForOptimal)
  .refine(remapNeedsLoss, {
    message:
      'remap needs a loss on the mechanism (the remap minimises the expected loss under its prior, uniform when none is given)',
  });

const base = { id, description: z.string().optional() };
const projectAnalysisSchema = z.discriminatedUnion('type', [
  z.strictObject({
    ...base,
    type: z.literal('measure'),
    mechanism: id,
    prior: id.optional(),
    loss: projectLossSchema.optional(),
  }),
  z.strictObject({ ...base, type: z.literal('check'), mechanism: id, epsilon: epsilonSchema.optional() }),
  z.strictObject({ ...base, type: z.literal('capacity'), domain: id, epsilon: epsilonSchema }),
  z.strictObject({ ...base, type: z.literal('regular'), domain: id, epsilon: epsilonSchema, prior: id }),
  z.strictObject({
    ...base,
    type: z.literal('threshold'),
    domain: id,
    from: epsilonSchema.optional(),
    to: epsilonSchema.optional(),
    step: epsilonSchema.optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('vertices'),
    domain: id,
    epsilon: epsilonSchema,
    kernels: z.boolean().optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('sweep'),
    domain: id,
    ...sweepRangeShape,
    prior: id.optional(),
    loss: projectLossSchema.optional(),
  }),
]);

/**
 * A result kept in the project file: the job result of one item,
 * with the hash of the inputs it was computed from (src-renderer/lib/kept-results.ts).
 * Reopening shows it without recomputing while the item's inputs still hash
 * the same; otherwise it is shown as stale. Mechanisms may carry their privacy check.
 */
const keptResultSchema = z.strictObject({
  hash: z.string().regex(/^[0-9a-f]{16}$/, 'a kept result hash is 16 hex digits'),
  computedAt: z.string().max(40).optional(),
  result: jobResultSchema,
  check: checkResultSchema.optional(),
});
export type KeptResult = z.infer<typeof keptResultSchema>;

const currentProjectSchema = z
  .strictObject({
    version: z.literal(PROJECT_VERSION, { error: `project version must be ${PROJECT_VERSION}` }),
    name: z.string().min(1).max(200),
    description: z.string().optional(),
    domains: z.array(projectDomainSchema).max(100),
    priors: z.array(projectPriorEntrySchema).max(100).default([]),
    mechanisms: z.array(projectMechanismSchema).max(200).default([]),
    analyses: z.array(projectAnalysisSchema).max(500).default([]),
    /**
     * Case studies (src-worker/casestudy/): computations with their own tables, charts and findings. Optional,
     * additive.
     */
    caseStudies: z.array(projectCaseStudySchema).max(50).optional(),
    /**
     * Comparisons (the Compare view's settings and table) and audits (inputs, the file's name, size and SHA-256,
     * verdict); optional, ignored by runs.
     */
    comparisons: z.array(projectComparisonSchema).max(50).optional(),
    audits: z.array(projectAuditSchema).max(200).optional(),
    /** Computed results keyed by item id (case studies as 'case-study:ID'); optional, ignored by runs. */
    results: z.record(z.string(), keptResultSchema).optional(),
    /** Releases made from this project, in order (src-shared/protocol/releases.ts); optional, additive. */
    releases: z.array(releaseSchema).max(100_000).optional(),
    /** The eps each population may spend over its releases; optional. */
    privacyBudget: privacyBudgetSchema.optional(),
    /** Free-form state of the desktop app (open tabs, chart settings); ignored by runs. */
    ui: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((p, ctx) => {
    // Every id unique within its list; every reference resolves.
    const seen = (list: { id: string }[], what: string): Set<string> => {
      const s = new Set<string>();
      list.forEach((x, i) => {
        if (s.has(x.id))
          ctx.addIssue({ code: 'custom', path: [what, i, 'id'], message: `duplicate ${what} id '${x.id}'` });
        s.add(x.id);
      });
      return s;
    };
    const doms = seen(p.domains, 'domains');
    const pris = seen(p.priors, 'priors');
    const mechs = seen(p.mechanisms, 'mechanisms');
    seen(p.analyses, 'analyses');
    if (p.caseStudies) seen(p.caseStudies, 'caseStudies');
    if (p.comparisons) seen(p.comparisons, 'comparisons');
    if (p.audits) seen(p.audits, 'audits');
    const ref = (set: Set<string>, v: string | undefined, path: (string | number)[], what: string): void => {
      if (v !== undefined && !set.has(v)) ctx.addIssue({ code: 'custom', path, message: `unknown ${what} '${v}'` });
    };
    p.priors.forEach((x, i) => ref(doms, x.domain, ['priors', i, 'domain'], 'domain'));
    p.mechanisms.forEach((x, i) => {
      ref(doms, x.domain, ['mechanisms', i, 'domain'], 'domain');
      ref(pris, x.prior, ['mechanisms', i, 'prior'], 'prior');
    });
    const cases = new Set((p.caseStudies ?? []).map((c) => `case-study:${c.id}`));
    for (const key of Object.keys(p.results ?? {})) {
      if (!mechs.has(key) && !p.analyses.some((a) => a.id === key) && !cases.has(key))
        ctx.addIssue({
          code: 'custom',
          path: ['results', key],
          message: `a kept result names no mechanism, analysis or case study '${key}'`,
        });
    }
    (p.comparisons ?? []).forEach((c, i) => {
      ref(doms, c.domain, ['comparisons', i, 'domain'], 'domain');
      ref(pris, c.prior, ['comparisons', i, 'prior'], 'prior');
      c.mechanisms.forEach((m, j) => ref(mechs, m, ['comparisons', i, 'mechanisms', j], 'mechanism'));
    });
    (p.audits ?? []).forEach((a, i) => ref(pris, a.pointsPrior, ['audits', i, 'pointsPrior'], 'prior'));
    p.analyses.forEach((a, i) => {
      if ('mechanism' in a) ref(mechs, a.mechanism, ['analyses', i, 'mechanism'], 'mechanism');
      if ('domain' in a) ref(doms, a.domain, ['analyses', i, 'domain'], 'domain');
      if ('prior' in a) ref(pris, a.prior, ['analyses', i, 'prior'], 'prior');
    });
  });

/**
 * A project of the current version, or of an earlier one migrated when it is read (project-migration.ts): what
 * every reader validates with. Its output, and the input it is typed with, are the current version's.
 */
export const projectSchema = z.preprocess<unknown, typeof currentProjectSchema, z.input<typeof currentProjectSchema>>(
  (raw, ctx) => {
    const m = migrateProject(raw);
    if (m.ok) return m.project;
    ctx.addIssue({ code: 'custom', message: m.message, path: m.path, input: raw });
    return raw;
  },
  currentProjectSchema,
);

/**
 * A valid project (of any version projectSchema reads) as a file of the current version holds it: what the app and the
 * CLI write.
 */
export function currentVersionOf(project: unknown): ProjectInput {
  const m = migrateProject(project);
  return (m.ok ? m.project : project) as ProjectInput;
}

export type Project = z.infer<typeof projectSchema>;
/** The project as written in a file (defaults not yet applied). */
export type ProjectInput = z.input<typeof projectSchema>;
export type ProjectPrior = z.infer<typeof projectPriorSchema>;
export type ProjectLoss = z.infer<typeof projectLossSchema>;
