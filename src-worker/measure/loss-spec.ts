import { MechError } from '../../src-shared/errors';
import type { Matrix } from '../linalg/matrix';
import type { Domain } from '../metric/domain';
import { binaryLoss } from './binary-loss';
import { distanceLoss } from './distance-loss';
import { binaryGain, gainFromLoss } from './gain-function';
import type { GainFunction, LossFunction } from './guess-function';
import { matrixGain, matrixLoss } from './matrix-loss';
import { nibLoss } from './nib-loss';

/**
 * A loss or gain function as the CLI and project files name it (SPEC §8:
 * --loss bin | nib | dist | dist2 | csv:FILE). The CLI reads the CSV and
 * passes its numbers as a matrix (rows = guesses, columns = secrets).
 */
export type GuessSpec =
  | { kind: 'bin' }
  | { kind: 'nib' }
  | { kind: 'dist' }
  | { kind: 'dist2' }
  | { kind: 'matrix'; matrix: Matrix; guessLabels?: readonly string[] };

type BuiltinGuessName = 'bin' | 'nib' | 'dist' | 'dist2';

/**
 * The built-in names, each with its loss l(w, x) and its gain g(w, x) on a domain. 'bin': loss 0 if w = x
 * else 1, gain the identity (1 if w = x); 'nib': loss 1 if w = x, gain its complement (1 if w != x);
 * 'dist'/'dist2': loss the distance (or its square), gain its negation (g = -d, so V_g = -U_d).
 */
const BUILTINS: Record<BuiltinGuessName, { loss: (d: Domain) => LossFunction; gain: (d: Domain) => GainFunction }> = {
  bin: { loss: (d) => binaryLoss(d.n, labels(d)), gain: (d) => binaryGain(d.n, labels(d)) },
  nib: { loss: (d) => nibLoss(d.n, labels(d)), gain: (d) => gainFromLoss(nibLoss(d.n, labels(d)), 1) },
  dist: { loss: (d) => distanceLoss(d, 1), gain: (d) => gainFromLoss(distanceLoss(d, 1)) },
  dist2: { loss: (d) => distanceLoss(d, 2), gain: (d) => gainFromLoss(distanceLoss(d, 2)) },
};

function labels(domain: Domain): (i: number) => string {
  return (i) => domain.label(i);
}

function isBuiltin(kind: string): kind is BuiltinGuessName {
  return Object.hasOwn(BUILTINS, kind);
}

/** Parse a built-in name ('bin', 'nib', 'dist', 'dist2'); anything else is a clear error. */
export function parseGuessName(text: string): GuessSpec {
  const t = text.trim();
  if (isBuiltin(t)) return { kind: t };
  throw new MechError('invalid-input', `unknown loss '${text}': use bin, nib, dist, dist2 or csv:FILE`);
}

function checkSecrets(n: number, domain: Domain): void {
  if (n !== domain.n)
    throw new MechError(
      'invalid-input',
      `loss/gain matrix has ${n} secret columns but the domain ${domain.spec} has ${domain.n} points`,
    );
}

type Builtin = (typeof BUILTINS)[BuiltinGuessName];

/** The loss or gain a spec names: a matrix (its columns must be the domain's points) or a built-in name. */
function buildGuessFunction<F>(
  spec: GuessSpec,
  domain: Domain,
  sense: 'loss' | 'gain',
  fromMatrix: (m: Matrix, guessLabels?: readonly string[]) => F,
  fromBuiltin: (b: Builtin) => F,
): F {
  if (spec.kind === 'matrix') {
    checkSecrets(spec.matrix.cols, domain);
    return fromMatrix(spec.matrix, spec.guessLabels);
  }
  if (!isBuiltin(spec.kind))
    throw new MechError('invalid-input', `unknown ${sense} kind '${String((spec as { kind: unknown }).kind)}'`);
  return fromBuiltin(BUILTINS[spec.kind]);
}

/** Build the loss function l(w, x) a spec names, on a domain (SPEC §3). */
export function buildLoss(spec: GuessSpec, domain: Domain): LossFunction {
  return buildGuessFunction(spec, domain, 'loss', matrixLoss, (b) => b.loss(domain));
}

/** Build a gain function g(w, x) from the same names (a matrix is taken as gains). */
export function buildGain(spec: GuessSpec, domain: Domain): GainFunction {
  return buildGuessFunction(spec, domain, 'gain', matrixGain, (b) => b.gain(domain));
}
