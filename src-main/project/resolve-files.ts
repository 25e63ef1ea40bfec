/**
 * Resolve a project's file references on the Node side, relative to the
 * project file's directory: csv:FILE priors and losses become numbers,
 * graph:FILE / csv:FILE domains get absolute paths. The result can be sent
 * to a worker as a run-project job or planned into single jobs.
 */
import { resolve } from 'node:path';
import type { Project } from '../../src-shared/protocol/project';
import type { CaseStudyParams } from '../../src-shared/protocol/casestudy';
import { invalid } from '../../src-shared/errors';
import { parseLossArg, parsePriorArg, readNumericCells, resolveDomainArg } from '../fs/inputs';

/**
 * Case-study parameters written as csv:FILE (relative to the project file)
 * become number lists: every numeric cell, row by row, left to right; cells
 * that are not numbers (a header, a time column) are skipped, so a
 * `time,watts` trace gives its watts and a 20 x 20 grid its 400 weights.
 */
export function resolveCaseStudyParams(params: CaseStudyParams | undefined, baseDir: string): CaseStudyParams | undefined {
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

export function resolveProjectFiles(project: Project, baseDir: string): Project {
  return {
    ...project,
    domains: project.domains.map((d) => (typeof d.domain === 'string' ? { ...d, domain: resolveDomainArg(d.domain, baseDir) } : d)),
    priors: project.priors.map((p) => (typeof p.prior === 'string' ? { ...p, prior: parsePriorArg(p.prior, baseDir) } : p)),
    mechanisms: project.mechanisms.map((m) => (typeof m.loss === 'string' ? { ...m, loss: parseLossArg(m.loss, baseDir) } : m)),
    analyses: project.analyses.map((a) => ('loss' in a && typeof a.loss === 'string' ? { ...a, loss: parseLossArg(a.loss, baseDir) } : a)),
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
