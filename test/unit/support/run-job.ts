/**
 * Run a protocol job in-process the way a worker does (parseJobRequest ->
 * runJobRequest) and check the reply against the result schema the main
 * side applies: the one helper of the unit suites that run jobs.
 */
import { silentContext, type JobContext } from '../../../src-worker/jobs/context';
import { runJobRequest } from '../../../src-worker/jobs/run';
import { jobResultSchema, type JobResult } from '../../../src-shared/protocol/results';
import { parseJobRequest } from '../../../src-shared/protocol/validate';
import type { JobRequest } from '../../../src-shared/protocol/requests';

/**
 * The validated request, or a thrown Error with the boundary's message (for tests that hand a request to something else
 * than runJob).
 */
export function validRequest(request: unknown): JobRequest {
  const parsed = parseJobRequest(request);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

export async function runJob<T extends JobResult['type'] = JobResult['type']>(
  request: unknown,
  ctx: JobContext = silentContext(),
): Promise<Extract<JobResult, { type: T }>> {
  const r = await runJobRequest(validRequest(request), ctx);
  const v = jobResultSchema.safeParse(r);
  if (!v.success) throw new Error(`reply fails the result schema: ${JSON.stringify(v.error.issues[0])}`);
  return r as Extract<JobResult, { type: T }>;
}
