/**
 * Resolve a project's file references on the Node side, relative to the
 * project file's directory: csv:FILE priors and losses become numbers,
 * graph:FILE / csv:FILE domains get absolute paths. The result can be sent
 * to a worker as a run-project job or planned into single jobs.
 */
import type { Project } from '../../src-worker/protocol/project';
import { parseLossArg, parsePriorArg, resolveDomainArg } from '../cli/inputs';

export function resolveProjectFiles(project: Project, baseDir: string): Project {
  return {
    ...project,
    domains: project.domains.map((d) => (typeof d.domain === 'string' ? { ...d, domain: resolveDomainArg(d.domain, baseDir) } : d)),
    priors: project.priors.map((p) => (typeof p.prior === 'string' ? { ...p, prior: parsePriorArg(p.prior, baseDir) } : p)),
    mechanisms: project.mechanisms.map((m) => (typeof m.loss === 'string' ? { ...m, loss: parseLossArg(m.loss, baseDir) } : m)),
    analyses: project.analyses.map((a) => ('loss' in a && typeof a.loss === 'string' ? { ...a, loss: parseLossArg(a.loss, baseDir) } : a)),
  };
}
