/**
 * The `explorer` job (SPEC §6): the privacy-type explorer's simplex view and
 * capacity table for a small domain, computed in the engine so the page only
 * draws them. The simplex view needs exactly 3 points; the capacity table
 * covers domains of up to EXPLORER_TABLE_MAX_N points, and for a line, ring
 * or clique every size from 2 up to the domain's, so the table shows how the
 * capacities grow.
 */
import { MechError } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { parseDomainSpec } from '../metric/parse-domain-spec';
import { EXPLORER_TABLE_MAX_N, type ExplorerRequest, type ExplorerResult } from '../../src-shared/protocol/index';
import { capacityTableRows } from '../explorer/capacity-rows';
import { ternaryViewForDomain } from '../explorer/ternary-data';
import { checkCancelled, type JobContext } from './context';
import { domainOf } from './handlers';
import type { JobAdmission } from './admission';

/** The domains of the capacity table: the family line/ring/clique:2..n, or the domain alone. */
function capacityTableDomains(domain: Domain): Domain[] {
  const family = /^(line|ring|clique):(\d+)$/.exec(domain.spec);
  if (!family) return [domain];
  return Array.from({ length: domain.n - 1 }, (_, k) =>
    k + 2 === domain.n ? domain : parseDomainSpec(`${family[1]}:${k + 2}`),
  );
}

/** A part's input error as a note; cancellation and bugs are rethrown. */
function partFailure(e: unknown): { kind: 'failed'; message: string } {
  if (e instanceof MechError && e.code !== 'cancelled' && e.code !== 'internal')
    return { kind: 'failed', message: e.message };
  throw e;
}

export async function explorerJob(
  req: ExplorerRequest,
  ctx: JobContext,
  admission: JobAdmission,
): Promise<ExplorerResult> {
  const domain = domainOf(admission, req.domain, ctx);
  const out: ExplorerResult = {
    type: 'explorer',
    domain: domain.spec,
    epsilon: req.epsilon,
    simplex: null,
    capacityRows: null,
  };
  ctx.progress(null, 'privacy-type explorer');
  // Each part that cannot be computed says why in its place; the other part is still shown.
  if (domain.n !== 3) out.simplexNote = { kind: 'needs-three-points', points: domain.n };
  else {
    try {
      out.simplex = ternaryViewForDomain(domain, req.epsilon);
    } catch (e) {
      out.simplexNote = partFailure(e);
    }
  }
  checkCancelled(ctx.signal);
  if (domain.n <= EXPLORER_TABLE_MAX_N) {
    try {
      out.capacityRows = capacityTableRows(
        capacityTableDomains(domain),
        req.epsilon,
        ctx.signal ? { kernel: { signal: ctx.signal } } : {},
      );
    } catch (e) {
      partFailure(e);
    }
  }
  return out;
}
