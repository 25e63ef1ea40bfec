/**
 * Loss and gain functions over guesses w and secrets x (SPEC §3). Both are
 * "guess functions": a value(w, x) plus a best response to an unnormalised
 * posterior column q_y(x) = pi_x C[x][y] — the argmin (loss) or argmax (gain)
 * over w of sum_x q(x) f(w, x). Built-in functions implement `best` with a
 * structure-aware fast path (binary: one max; distance on a line: a weighted
 * median); `bestByScan` is the O(W n) general case.
 */
export interface BestGuess {
  /** The optimal guess (ties go to the smallest index). */
  w: number;
  /** sum_x q(x) f(w, x) at that guess. */
  value: number;
}

export interface GuessFunction {
  /** 'loss' is minimised, 'gain' maximised. */
  readonly sense: 'loss' | 'gain';
  /** Short name: bin, nib, dist, dist2, matrix, ... */
  readonly name: string;
  /** Number of secrets x (must equal the channel's rows). */
  readonly secrets: number;
  /** Number of guesses w. */
  readonly guesses: number;
  guessLabel(w: number): string;
  value(w: number, x: number): number;
  /** Best guess against the non-negative weight vector q (length `secrets`). */
  best(q: Float64Array): BestGuess;
  /**
   * Set when the best response depends only on the largest or smallest q(x)
   * with guess w = x: 'argmax' means best = argmax_x q(x) with value
   * a*sum(q) + b*max(q), 'argmin' the same with min(q). Lets measures skip the
   * column gathering and stream in one pass. `affine` = [a, b].
   */
  readonly identityGuess?: { pick: 'argmax' | 'argmin'; affine: readonly [number, number] };
}

export interface LossFunction extends GuessFunction {
  readonly sense: 'loss';
}

export interface GainFunction extends GuessFunction {
  readonly sense: 'gain';
}

/**
 * A function on n secrets with guesses = secrets whose value depends only on
 * whether the guess hits the secret: value(w, x) = hit if w = x else miss
 * (binary loss, nib loss, binary gain). The best response is read from
 * max/min/sum of the column (bestIdentity), declared by `identityGuess`.
 */
export function identityGuessFunction<S extends 'loss' | 'gain'>(
  sense: S,
  name: string,
  n: number,
  hitMiss: readonly [hit: number, miss: number],
  identityGuess: NonNullable<GuessFunction['identityGuess']>,
  labels?: (i: number) => string,
): GuessFunction & { sense: S } {
  const [hit, miss] = hitMiss;
  const f: GuessFunction & { sense: S } = {
    sense,
    name,
    secrets: n,
    guesses: n,
    guessLabel: (w) => (labels ? labels(w) : String(w)),
    value: (w, x) => (w === x ? hit : miss),
    identityGuess,
    best: (q) => bestIdentity(f, q),
  };
  return f;
}

/** General best response by scanning all guesses: O(guesses * secrets). */
export function bestByScan(
  f: Pick<GuessFunction, 'sense' | 'secrets' | 'guesses' | 'value'>,
  q: Float64Array,
): BestGuess {
  const n = f.secrets;
  const minimise = f.sense === 'loss';
  let bestW = 0;
  let bestV = minimise ? Infinity : -Infinity;
  for (let w = 0; w < f.guesses; w++) {
    let s = 0;
    for (let x = 0; x < n; x++) {
      const qx = q[x]!;
      if (qx !== 0) s += qx * f.value(w, x);
    }
    if (minimise ? s < bestV : s > bestV) {
      bestV = s;
      bestW = w;
    }
  }
  return { w: bestW, value: bestV };
}

/** Best response of an identity-guess function (binary, nib) from max/min/sum of q. */
function bestIdentity(f: GuessFunction, q: Float64Array): BestGuess {
  const id = f.identityGuess!;
  let s = 0;
  let pick = 0;
  for (let x = 0; x < q.length; x++) {
    s += q[x]!;
    if (id.pick === 'argmax' ? q[x]! > q[pick]! : q[x]! < q[pick]!) pick = x;
  }
  return { w: pick, value: id.affine[0] * s + id.affine[1] * (q.length > 0 ? q[pick]! : 0) };
}
