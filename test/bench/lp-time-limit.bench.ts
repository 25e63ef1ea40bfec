/**
 * `npm run bench -- lp-time-limit`: how long the optimal request of test/integration/lp-time-limit.test.ts (50 x 50,
 * exact model, 30 s limit) takes as a whole job, against its limit. Printed, not asserted: the test checks that the
 * job stops at the limit with the best mechanism; before the whole-job limit this job ran for minutes past it.
 * The machine's load average is printed: other work on the same cores stretches every phase outside the LP.
 */
import { availableParallelism, loadavg } from 'node:os';
import { silentContext } from '../../src-worker/jobs/context';
import { runJobRequest } from '../../src-worker/jobs/run';
import { parseJobRequest } from '../../src-shared/protocol/validate';
import type { MechanismResult } from '../../src-shared/protocol/results';
import { timeLimitRequest, TIME_LIMIT_SECONDS } from '../integration/lp-time-limit-request';

export default async function (): Promise<void> {
  const p = parseJobRequest(timeLimitRequest());
  if (!p.ok) throw new Error(p.error.message);
  const load = loadavg()[0]!.toFixed(1);
  const t0 = performance.now();
  const r = (await runJobRequest(p.value, silentContext())) as MechanismResult;
  const s = (performance.now() - t0) / 1000;
  console.log(
    `50 x 50 optimal, ${TIME_LIMIT_SECONDS} s limit: whole job ${s.toFixed(1)} s (${(s / TIME_LIMIT_SECONDS).toFixed(2)}x the limit), ` +
      `stopped by ${r.lp?.stoppedBy}, ${r.lp?.rounds} rounds, gap ${r.lp?.gap.toPrecision(3)}; load average ${load} on ${availableParallelism()} cores`,
  );
}
