import { MechError } from '../../src-shared/errors';
import type { CandidateNote } from '../../src-shared/protocol/index';
import type { CheapCandidate } from '../lp/optimal/optimal-mechanism';
import type { Mechanism } from '../mechanism/channel';
import { closedFormMechanism } from '../mechanism/closed-form-by-kind';
import { tightConstraintsStructured } from '../mechanism/implicit/tight-structured';
import type { Domain } from '../metric/domain';
import { checkCancelled } from '../numeric/cancel';
import { remapMechanism } from '../remap/bayes-remap';
import type { GuessSpec } from '../measure/loss-spec';

/**
 * The cheap constructions tried before an optimal LP (docs/lp.md, "Never worse than a cheap construction"), in
 * this order: planar Laplace (grids: post-processing of the continuous eps*d mechanism), the tight-constraints
 * mechanism (where Phi z = 1 has z >= 0) and the exponential mechanism exp(-eps d / 2). Each is eps*d-private and
 * is Bayes-remapped for the prior and the loss (post-processing: still private, never worse).
 */
const CANDIDATE_CONSTRUCTIONS = ['planar-laplace', 'tight', 'exponential'] as const;
type Construction = (typeof CANDIDATE_CONSTRUCTIONS)[number];
/**
 * The mechanism of a construction, or why it is not a candidate (lp-words.ts words it): the tight-constraints
 * mechanism's output weights (Phi z = 1, SPEC §4) would need one below 0, or planar Laplace off a grid.
 */
function construct(kind: Construction, domain: Domain, eps: number): Mechanism | CandidateNote {
  if (kind === 'tight') {
    const r = tightConstraintsStructured(domain, eps);
    return r.exists ? r.mechanism : { kind: 'tight-does-not-exist', minZAt: r.argMinLabel };
  }
  if (kind === 'planar-laplace' && !domain.structure.grid) return { kind: 'grids-only' };
  return closedFormMechanism(kind, domain, eps);
}

/**
 * Each construction built and remapped for the prior and the loss (binary gain when no loss is given, as the LP
 * maximises utility then). A construction that does not exist or does not apply is listed with the reason; a
 * failure of one (e.g. too large) does not stop the others. The LP computes their expected losses with its own
 * cost, so that they compare exactly.
 */
export function cheapCandidates(
  domain: Domain,
  eps: number,
  prior: Float64Array,
  loss: GuessSpec | undefined,
  ctx: { signal: AbortSignal; progress(fraction: number | null, message: string): void; deadline?: number },
): CheapCandidate[] {
  const out: CheapCandidate[] = [];
  let slowest = 0;
  for (const kind of CANDIDATE_CONSTRUCTIONS) {
    checkCancelled(ctx.signal);
    const t0 = performance.now();
    const construction = `${kind}+remap`;
    // With a deadline (performance.now() ms), once one candidate is built, the next is tried only when, at the
    // pace of the slowest so far, it and one streamed pass over each built candidate (their expected losses,
    // ./best-candidate.ts: a pass costs about what a construction and its remap do) end before it.
    const built = out.filter((c) => c.remapped).length;
    if (ctx.deadline !== undefined && built > 0 && t0 + (built + 2) * slowest > ctx.deadline) {
      out.push({ construction, timeMs: 0, note: { kind: 'not-tried' } });
      continue;
    }
    ctx.progress(null, `trying ${kind} with the optimal remap before the LP`);
    try {
      const mech = construct(kind, domain, eps);
      if (!('channel' in mech)) {
        out.push({ construction, timeMs: performance.now() - t0, note: mech });
        continue;
      }
      const r = remapMechanism(mech, domain, prior, loss ?? { kind: 'bin' }, { signal: ctx.signal });
      out.push({
        construction,
        timeMs: performance.now() - t0,
        channel: mech.channel,
        remap: r.remap,
        remapped: r.channel,
      });
      slowest = Math.max(slowest, performance.now() - t0);
    } catch (e) {
      if (!(e instanceof MechError) || e.code === 'cancelled' || e.code === 'internal') throw e;
      out.push({ construction, timeMs: performance.now() - t0, note: { kind: 'failed', message: e.message } });
    }
  }
  return out;
}
