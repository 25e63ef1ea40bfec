import { checkPrivacy } from '../check/privacy-check';
import { edgesIfAvailable } from '../metric/shortest-paths';
import type { Domain } from '../metric/domain';
import type { RowSource } from './channel';
import type { MeasuredEpsilon } from './facts';

/** Comparisons allowed when a constructor verifies its own guarantee (kept small: constructors must stay fast). */
export const SELF_CHECK_MAX_WORK = 5e7;

/**
 * The effective eps of a freshly built channel (SPEC §4), for its facts,
 * when the check is cheap; otherwise a note saying it was skipped.
 */
export function measuredEpsilon(src: RowSource, domain: Domain, eps: number): MeasuredEpsilon {
  const n = domain.n;
  const edges = edgesIfAvailable(domain);
  const pairs = edges ? edges.from.length : (n * (n - 1)) / 2;
  if (pairs * src.cols > SELF_CHECK_MAX_WORK) {
    return { checked: false, note: `not measured at construction (${pairs} pairs x ${src.cols} outputs); run the privacy check` };
  }
  const r = checkPrivacy(src, domain, eps, { topK: 0 });
  return { checked: true, effectiveEpsilon: r.effectiveEpsilon };
}
