import { MechError, assertEpsilon } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import { FunctionRowSource } from '../mechanism/function-row-source';
import type { Domain } from '../metric/domain';
import { querySensitivity, type QuerySensitivity } from '../metric/query-sensitivity';
import { checkPrivacy, type PrivacyCheckOptions, type PrivacyCheckResult } from './privacy-check';

export interface ComposedQueryCheck {
  sensitivity: QuerySensitivity;
  /** The answer mechanism H checked against eps * dY on the answers. */
  answerCheck: PrivacyCheckResult;
  /** eps * Delta: the scale of dX that H(f(.)) is checked against. */
  composedEpsilon: number;
  /** True when f is uniformly Delta-sensitive: H(f(.)) is certified from H alone. */
  certifiedFromAnswers: boolean;
  /** H(f(.)) is (eps Delta) * dX-private. */
  composedPasses: boolean;
  /** The direct check of H(f(.)) on X (only when the converse does not hold). */
  directCheck?: PrivacyCheckResult;
  /** One sentence for users: what was certified and how. */
  statement: string;
}

/**
 * Privacy of a mechanism H on the answers (Y, dY) of a query f : (X, dX) ->
 * (Y, dY), composed with the query (SPEC §4). With Delta the sensitivity of
 * f, H eps*dY-private always implies H(f(.)) (eps Delta)*dX-private. When f
 * is uniformly Delta-sensitive the converse holds too, so H(f(.)) is
 * certified (or refuted) from H alone; otherwise the converse does not hold
 * and the composition x -> row f(x) of H is checked directly on X (X small
 * enough to enumerate, as for querySensitivity).
 */
export function checkComposedWithQuery(
  h: RowSource,
  Y: Domain,
  X: Domain,
  f: (x: number) => number,
  eps: number,
  opts: PrivacyCheckOptions = {},
): ComposedQueryCheck {
  assertEpsilon(eps);
  if (h.rows !== Y.n)
    throw new MechError(
      'invalid-input',
      `the answer mechanism has ${h.rows} rows but the answer domain ${Y.spec} has ${Y.n} points`,
    );
  const sensitivity = querySensitivity(X, Y, f);
  const delta = sensitivity.delta;
  if (!Number.isFinite(delta)) {
    throw new MechError(
      'not-applicable',
      `the query from ${X.spec} to ${Y.spec} has infinite sensitivity: no finite eps * dX guarantee can follow from H`,
      {
        delta,
      },
    );
  }
  const answerCheck = checkPrivacy(h, Y, eps, opts);
  const composedEpsilon = eps * delta;
  if (delta === 0) {
    // f is constant on every finite-distance class: all rows of H(f(.)) coincide there.
    return {
      sensitivity,
      answerCheck,
      composedEpsilon: 0,
      certifiedFromAnswers: true,
      composedPasses: true,
      statement: `the query is constant on connected secrets (Delta = 0): H(f(.)) reveals nothing about them whatever H is`,
    };
  }
  if (sensitivity.uniform) {
    return {
      sensitivity,
      answerCheck,
      composedEpsilon,
      certifiedFromAnswers: true,
      composedPasses: answerCheck.passes,
      statement: answerCheck.passes
        ? `certified from H alone: H is ${eps}*dY-private and the query is uniformly ${delta}-sensitive, so H(f(.)) is ${composedEpsilon}*dX-private`
        : `refuted from H alone: H is not ${eps}*dY-private and the query is uniformly ${delta}-sensitive, so H(f(.)) is not ${composedEpsilon}*dX-private`,
    };
  }
  const fx = new Int32Array(X.n);
  for (let x = 0; x < X.n; x++) fx[x] = f(x);
  const composed = new FunctionRowSource(
    X.n,
    h.cols,
    (x, out) => void h.row(fx[x]!, out),
    (x) => X.label(x),
    (j) => h.colLabel(j),
  );
  const directCheck = checkPrivacy(composed, X, composedEpsilon, opts);
  return {
    sensitivity,
    answerCheck,
    composedEpsilon,
    certifiedFromAnswers: false,
    composedPasses: directCheck.passes,
    directCheck,
    statement:
      `the query is ${delta}-sensitive but not uniformly, so H(f(.)) being ${composedEpsilon}*dX-private does not imply H is ${eps}*dY-private; ` +
      `checked the composition directly: ${directCheck.passes ? 'passes' : 'fails'} (effective eps ${directCheck.effectiveEpsilon} on dX)` +
      (answerCheck.passes ? '' : `, although H itself is not ${eps}*dY-private`),
  };
}
