/**
 * What a constructor knows about the mechanism it built (its "facts"), as a
 * discriminated, typed record: one variant per construction, produced by the
 * constructor and read by name (`m.facts.kind === 'optimal' ? m.facts.solve.objective
 * : ...`), never parsed back from text.
 *
 * The type is the protocol's (`mechanismFactsSchema` in
 * src-shared/protocol/facts.ts): job results carry these very records as
 * `facts`, and src-shared/charts/fact-rows.ts writes them in words for the
 * app and the CLI. An optimal mechanism's LP record (model, certified bound,
 * gap) is `OptimalMechanism.lp`, the result's `lp`.
 */
import type { MechanismFacts } from '../../src-shared/protocol/index';
import { MechError } from '../../src-shared/errors';

export type { LpSolveFacts, MechanismFacts } from '../../src-shared/protocol/index';

/** The facts of a mechanism built by a known construction, narrowed by kind (an internal error if it is another). */
export function factsOf<K extends MechanismFacts['kind']>(
  m: { facts: MechanismFacts },
  kind: K,
): Extract<MechanismFacts, { kind: K }> {
  if (m.facts.kind !== kind)
    throw new MechError('internal', `expected the facts of a '${kind}' construction, got '${m.facts.kind}'`);
  return m.facts as Extract<MechanismFacts, { kind: K }>;
}
