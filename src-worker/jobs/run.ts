/** Route a validated request to its handler. */
import { MechError } from '../errors';
import type { JobRequest } from '../protocol/requests';
import type { JobResult } from '../protocol/results';
import type { JobContext } from './context';

export async function runJobRequest(req: JobRequest, ctx: JobContext): Promise<JobResult> {
  switch (req.type) {
    default:
      throw new MechError('internal', `job type '${req.type}' is not wired to the engine yet`);
  }
}
