/** Route a validated request to its handler. */
import { MechError, messageOf } from '../../src-shared/errors';
import {
  type JobRequest,
  type RunProjectRequest,
  type JobResult,
  type JobType,
  type ProjectItemResult,
  type ResultFor,
  type RunProjectResult,
} from '../../src-shared/protocol/index';
import { checkCancelled, type JobContext } from './context';
import { applyJob, checkJob, measureJob, mechanismJob } from './handlers';
import { capacityJob, regularJob, sweepJob, thresholdJob, verticesJob } from './analysis-jobs';
import { planProject } from './project-plan';
import { admitJob, type JobAdmission } from './admission';
import { runCaseStudy } from '../casestudy';
import { compareJob } from './compare-job';
import { rowsJob } from './rows';
import { explorerJob } from './explorer-job';
import { auditJob } from './audit-job';

type Handler<T extends JobType> = (
  req: Extract<JobRequest, { type: T }>,
  ctx: JobContext,
  admission: JobAdmission,
) => Promise<ResultFor<T>>;

/** The handler of each job type. */
const HANDLERS: { [T in JobType]: Handler<T> } = {
  mechanism: mechanismJob,
  measure: measureJob,
  check: checkJob,
  capacity: capacityJob,
  regular: regularJob,
  threshold: thresholdJob,
  vertices: verticesJob,
  sweep: sweepJob,
  'run-project': (req, ctx) => runProjectJob(req, ctx),
  'case-study': (req, ctx) => runCaseStudy(req, ctx),
  apply: applyJob,
  compare: compareJob,
  rows: rowsJob,
  explorer: explorerJob,
  audit: auditJob,
};

export async function runJobRequest(req: JobRequest, ctx: JobContext): Promise<JobResult> {
  // One size-and-work estimate, entered here once (./admission.ts): what the request shows is refused at once,
  // before anything is built; the checks a file or inline domain waits for run when the handler builds it.
  const admission = admitJob(req);
  return (HANDLERS[req.type] as Handler<JobType>)(req, ctx, admission);
}

/**
 * Every mechanism and analysis of a project, one after the other in this
 * worker; one item's failure is recorded and the others still run.
 */
async function runProjectJob(req: RunProjectRequest, ctx: JobContext): Promise<RunProjectResult> {
  const plan = planProject(req.project);
  const out: RunProjectResult = { type: 'run-project', name: req.project.name, mechanisms: [], analyses: [] };
  for (let k = 0; k < plan.length; k++) {
    const item = plan[k]!;
    checkCancelled(ctx.signal);
    ctx.progress(k / plan.length, `${item.group.slice(0, -1)} ${item.id}`);
    const sub: JobContext = { signal: ctx.signal, progress: () => undefined };
    let r: ProjectItemResult;
    try {
      const request =
        item.request.type === 'mechanism' && req.inlineLimit !== undefined
          ? { ...item.request, inlineLimit: req.inlineLimit }
          : item.request;
      r = { id: item.id, ok: true, result: await runJobRequest(request, sub) };
    } catch (e) {
      if (e instanceof MechError && e.code === 'cancelled') throw e;
      r = {
        id: item.id,
        ok: false,
        error: { code: e instanceof MechError ? e.code : 'internal', message: messageOf(e) },
      };
    }
    out[item.group].push(r);
  }
  ctx.progress(1, 'done');
  return out;
}
