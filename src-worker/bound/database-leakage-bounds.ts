import { MechError, assertEpsilon, assertPositiveInt } from '../../src-shared/errors';

function checkDb(u: number, v: number, eps: number): void {
  assertPositiveInt(u, 'number of individuals u');
  if (!Number.isInteger(v) || v < 2)
    throw new MechError('invalid-input', `universe size v must be an integer >= 2, got ${String(v)}`);
  assertEpsilon(eps);
}

/** log(e^a + e^b) without overflow. */
function logAdd(a: number, b: number): number {
  const m = Math.max(a, b);
  if (m === -Infinity) return -Infinity;
  return m + Math.log(Math.exp(a - m) + Math.exp(b - m));
}

/**
 * Any eps-DP mechanism on databases V^u (Hamming metric, v = |V| >= 2) leaks
 * at most u log2(v e^eps / (v - 1 + e^eps)) bits of min-entropy; tight for
 * the uniform prior (SPEC §5). u=5, v=4, eps=0.5: 2.5226.
 */
export function databaseLeakageBound(u: number, v: number, eps: number): number {
  checkDb(u, v, eps);
  // v e^eps / (v - 1 + e^eps) = v / (1 + (v - 1) e^-eps)
  return (u * Math.log(v / (1 + (v - 1) * Math.exp(-eps)))) / Math.LN2;
}

/**
 * With at most r outputs (SPEC §5): leakage <= log2( r e^(eps u) /
 * ((v - 1 + e^eps)^l - e^(eps l) + e^(eps u)) ), l = floor(log_v r).
 * r is capped at v^u (more outputs than secrets cannot help; at r = v^u the
 * formula equals databaseLeakageBound). Evaluated in logs: no overflow for
 * large u.
 */
export function databaseLeakageBoundWithOutputs(u: number, v: number, eps: number, r: number): number {
  checkDb(u, v, eps);
  assertPositiveInt(r, 'number of outputs r');
  const lnV = Math.log(v);
  let lnR = Math.log(r);
  // l = floor(log_v r), exactly, with r capped at v^u
  let l = 0;
  let pw = 1;
  while (l < u && pw * v <= r) {
    pw *= v;
    l++;
  }
  if (l >= u) {
    l = u;
    lnR = Math.min(lnR, u * lnV);
  }
  const lnA = Math.log(v - 1 + Math.exp(eps)); // ln (v - 1 + e^eps)
  // (A^l - e^(eps l)) = A^l (1 - e^(l (eps - lnA))) >= 0
  const diffLn = l === 0 ? -Infinity : l * lnA + Math.log(-Math.expm1(l * (eps - lnA)));
  const lnDen = logAdd(diffLn, eps * u);
  return (lnR + eps * u - lnDen) / Math.LN2;
}

/** About one individual, the others known: at most log2(e^eps) = eps / ln 2 bits (SPEC §5). */
export function individualLeakageBound(eps: number): number {
  assertEpsilon(eps);
  return eps / Math.LN2;
}
