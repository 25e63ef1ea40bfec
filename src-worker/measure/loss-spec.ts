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
  { kind: 'bin' } | { kind: 'nib' } | { kind: 'dist' } | { kind: 'dist2' } | { kind: 'matrix'; matrix: Matrix; guessLabels?: readonly string[] };

export const BUILTIN_GUESS_NAMES = ['bin', 'nib', 'dist', 'dist2'] as const;

/** Parse a built-in name ('bin', 'nib', 'dist', 'dist2'); anything else is a clear error. */
export function parseGuessName(text: string): GuessSpec {
  const t = text.trim();
  if (t === 'bin' || t === 'nib' || t === 'dist' || t === 'dist2') return { kind: t };
  throw new MechError('invalid-input', `unknown loss '${text}': use bin, nib, dist, dist2 or csv:FILE`);
}

function checkSecrets(n: number, domain: Domain): void {
  if (n !== domain.n) throw new MechError('invalid-input', `loss/gain matrix has ${n} secret columns but the domain ${domain.spec} has ${domain.n} points`);
}

/** Build the loss function l(w, x) a spec names, on a domain (SPEC §3). */
export function buildLoss(spec: GuessSpec, domain: Domain): LossFunction {
  const lab = (i: number) => domain.label(i);
  switch (spec.kind) {
    case 'bin':
      return binaryLoss(domain.n, lab);
    case 'nib':
      return nibLoss(domain.n, lab);
    case 'dist':
      return distanceLoss(domain, 1);
    case 'dist2':
      return distanceLoss(domain, 2);
    case 'matrix':
      checkSecrets(spec.matrix.cols, domain);
      return matrixLoss(spec.matrix, spec.guessLabels);
    default:
      throw new MechError('invalid-input', `unknown loss kind '${String((spec as { kind: unknown }).kind)}'`);
  }
}

/**
 * Build a gain function g(w, x) from the same names. 'bin' is the identity
 * gain (1 if w = x), 'nib' its complement (1 if w != x), 'dist'/'dist2' the
 * negated distances (g = -d, so V_g = -U_d), a matrix is taken as gains.
 */
export function buildGain(spec: GuessSpec, domain: Domain): GainFunction {
  const lab = (i: number) => domain.label(i);
  switch (spec.kind) {
    case 'bin':
      return binaryGain(domain.n, lab);
    case 'nib':
      return gainFromLoss(nibLoss(domain.n, lab), 1);
    case 'dist':
      return gainFromLoss(distanceLoss(domain, 1));
    case 'dist2':
      return gainFromLoss(distanceLoss(domain, 2));
    case 'matrix':
      checkSecrets(spec.matrix.cols, domain);
      return matrixGain(spec.matrix, spec.guessLabels);
    default:
      throw new MechError('invalid-input', `unknown gain kind '${String((spec as { kind: unknown }).kind)}'`);
  }
}
