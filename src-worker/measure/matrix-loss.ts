import { MechError } from '../../src-shared/errors';
import type { Matrix } from '../linalg/matrix';
import { bestByScan, type GainFunction, type GuessFunction, type LossFunction } from './guess-function';

function checkTable(m: Matrix, what: string, guessLabels?: readonly string[]): void {
  if (m.rows < 1 || m.cols < 1) throw new MechError('invalid-input', `${what} matrix is empty (${m.rows} x ${m.cols})`);
  if (guessLabels && guessLabels.length !== m.rows) {
    throw new MechError(
      'invalid-input',
      `${what} matrix has ${m.rows} guesses (rows) but ${guessLabels.length} guess labels`,
    );
  }
  for (let w = 0; w < m.rows; w++)
    for (let x = 0; x < m.cols; x++) {
      const v = m.data[w * m.cols + x]!;
      if (!Number.isFinite(v))
        throw new MechError(
          'invalid-input',
          `${what} matrix entry (guess ${guessLabels ? guessLabels[w] : w}, secret ${x}) is ${v}, not a finite number`,
        );
    }
}

/** A guess function read from a validated table (rows = guesses, columns = secrets). */
function matrixGuess<S extends 'loss' | 'gain'>(
  sense: S,
  m: Matrix,
  guessLabels?: readonly string[],
): GuessFunction & { sense: S } {
  checkTable(m, sense, guessLabels);
  const f: GuessFunction & { sense: S } = {
    sense,
    name: 'matrix',
    secrets: m.cols,
    guesses: m.rows,
    guessLabel: (w) => (guessLabels ? guessLabels[w]! : String(w)),
    value: (w, x) => m.data[w * m.cols + x]!,
    best: (q) => bestByScan(f, q),
  };
  return f;
}

/**
 * Custom loss from a matrix: row w = a guess, column x = a secret,
 * entry l(w, x) (SPEC §3, "csv:FILE" losses). Any finite values here; a
 * job's loss is refused with a negative entry where it enters (jobs/resolve.ts).
 */
export function matrixLoss(m: Matrix, guessLabels?: readonly string[]): LossFunction {
  return matrixGuess('loss', m, guessLabels);
}

/** Custom gain function g(w, x) from a matrix (rows = guesses, columns = secrets). */
export function matrixGain(m: Matrix, guessLabels?: readonly string[]): GainFunction {
  return matrixGuess('gain', m, guessLabels);
}
