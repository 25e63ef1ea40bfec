/**
 * Resolve a project's file references on the Node side, relative to the
 * project file's directory: csv:FILE priors and losses become numbers,
 * graph:FILE / csv:FILE domains get absolute paths. The result can be sent
 * to a worker as a run-project job or planned into single jobs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Project, type CaseStudyParams, type FileRecord } from '../../src-shared/protocol/index';
import { invalid } from '../../src-shared/errors';
import { parseLossArg, parsePriorArg, readNumericCells, resolveDomainArg, splitPointsPrior } from '../fs/inputs';
import { parseDomainSpecText } from '../../src-shared/grammar/domain-spec';
import { parsePriorSpecText } from '../../src-shared/grammar/prior-spec';

/**
 * A file a project refers to: its role and its absolute path (relative to the project's folder, symbolic links not
 * followed).
 */
interface ProjectFileRef {
  what: string;
  file: string;
  /** A graph: domain's edge list (web mode reads it only under an edge list's name). */
  graph?: true;
}

/**
 * Every file a project refers to: graph:/csv: domains, csv:/points: priors,
 * csv: losses and case-study parameters. A malformed reference is left to
 * resolveProjectFiles, which names what is wrong.
 */
export function projectFileRefs(project: Project, baseDir: string): ProjectFileRef[] {
  const out: ProjectFileRef[] = [];
  const add = (what: string, file: string, graph = false): void =>
    void (
      file.trim() !== '' &&
      out.push({ what, file: resolve(baseDir, file.trim()), ...(graph ? { graph: true as const } : {}) })
    );
  for (const d of project.domains) {
    if (typeof d.domain !== 'string') continue;
    const g = parseDomainSpecText(d.domain.trim());
    if (g.ok && (g.spec.kind === 'graph' || g.spec.kind === 'csv'))
      add(`domain '${d.id}' file`, g.spec.file, g.spec.kind === 'graph');
  }
  for (const p of project.priors) {
    if (typeof p.prior !== 'string') continue;
    const r = parsePriorSpecText(p.prior);
    if (r.ok && r.prior.kind === 'csv') add(`prior '${p.id}' file`, r.prior.file);
    if (r.ok && r.prior.kind === 'points') add(`prior '${p.id}' points file`, splitPointsPrior(r.prior.text).fileText);
  }
  const loss = (id: string, l: unknown): void =>
    void (typeof l === 'string' && l.trim().startsWith('csv:') && add(`loss of '${id}' file`, l.trim().slice(4)));
  for (const m of project.mechanisms) loss(m.id, m.loss);
  for (const a of project.analyses) loss(a.id, (a as { loss?: unknown }).loss);
  for (const c of project.caseStudies ?? [])
    for (const [k, v] of Object.entries(c.params ?? {}))
      if (typeof v === 'string' && v.startsWith('csv:')) add(`case study '${c.id}' parameter '${k}' file`, v.slice(4));
  return out;
}

/**
 * Case-study parameters written as csv:FILE (relative to the project file)
 * become number lists: every numeric cell, row by row, left to right; cells
 * that are not numbers (a header, a time column) are skipped, so a
 * `time,watts` trace gives its watts and a 20 x 20 grid its 400 weights.
 */
export function resolveCaseStudyParams(
  params: CaseStudyParams | undefined,
  baseDir: string,
): CaseStudyParams | undefined {
  if (!params) return params;
  const out: CaseStudyParams = {};
  for (const [k, v] of Object.entries(params)) {
    if (typeof v === 'string' && v.startsWith('csv:')) {
      const file = resolve(baseDir, v.slice(4));
      const nums = readNumericCells(file, `case-study parameter '${k}'`);
      if (nums.length === 0) invalid(`case-study parameter '${k}': ${file} has no numbers`);
      out[k] = nums;
    } else out[k] = v;
  }
  return out;
}

/** The file a csv:/points: prior is read from, as read now (its record kept when one is there already). */
function priorSource(text: string, kept: FileRecord | undefined, baseDir: string): { source?: FileRecord } {
  if (kept) return { source: kept };
  const r = parsePriorSpecText(text);
  const file =
    r.ok && r.prior.kind === 'csv'
      ? r.prior.file
      : r.ok && r.prior.kind === 'points'
        ? splitPointsPrior(r.prior.text).fileText
        : null;
  if (file === null) return {};
  const bytes = readFileSync(resolve(baseDir, file.trim()));
  return {
    source: { name: file.trim(), size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
  };
}

export function resolveProjectFiles(project: Project, baseDir: string): Project {
  return {
    ...project,
    domains: project.domains.map((d) =>
      typeof d.domain === 'string' ? { ...d, domain: resolveDomainArg(d.domain, baseDir) } : d,
    ),
    priors: project.priors.map((p) =>
      typeof p.prior === 'string'
        ? { ...p, prior: parsePriorArg(p.prior, baseDir), ...priorSource(p.prior, p.source, baseDir) }
        : p,
    ),
    mechanisms: project.mechanisms.map((m) =>
      typeof m.loss === 'string' ? { ...m, loss: parseLossArg(m.loss, baseDir) } : m,
    ),
    analyses: project.analyses.map((a) =>
      'loss' in a && typeof a.loss === 'string' ? { ...a, loss: parseLossArg(a.loss, baseDir) } : a,
    ),
    ...(project.caseStudies
      ? {
          caseStudies: project.caseStudies.map((c) => {
            const params = resolveCaseStudyParams(c.params, baseDir);
            return params ? { ...c, params } : c;
          }),
        }
      : {}),
  };
}
