/**
 * A project (protocol/project.ts) as a list of protocol job requests: one
 * per mechanism, one per analysis, each item's request as the app builds it
 * too (src-shared/project/item-requests.ts). Used by the worker's run-project
 * job and by the main process's `mechstudio run` (which sends them to the
 * pool in parallel). File forms (csv:FILE) must have been resolved first.
 */
import { type Project, type JobRequest } from '../../src-shared/protocol/index';
import { analysisRequest, mechanismRequest } from '../../src-shared/project/item-requests';

interface PlannedJob {
  id: string;
  group: 'mechanisms' | 'analyses';
  request: JobRequest;
}

export function planProject(project: Project): PlannedJob[] {
  return [
    ...project.mechanisms.map((m): PlannedJob => ({
      id: m.id,
      group: 'mechanisms',
      request: mechanismRequest(project, m),
    })),
    ...project.analyses.map((a): PlannedJob => ({ id: a.id, group: 'analyses', request: analysisRequest(project, a) })),
  ];
}
