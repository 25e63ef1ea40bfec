/**
 * The labels of a mechanism's figures in the Mechanism view: utility in words, and the two expected losses a
 * remapped mechanism has (the channel shown, with the remap, and the one before it) told apart.
 */
import type { RemapResult } from '../../src-shared/protocol/index';

/** Utility under binary gain (SPEC §3): the probability that the best guess from the output is the true secret. */
export const UTILITY_LABEL = 'utility: chance the best guess is the true value';

/** The label of the loss of the channel shown and of the one before a further remap. */
export function lossLabels(remapped: boolean): { shown: string; before: string } {
  return {
    shown: remapped ? 'expected loss, with the remap' : 'expected loss',
    before: 'expected loss, without the remap',
  };
}

/** The remapped loss with what the remap saved, in percent of the loss without it. */
export function remapLossText(
  r: Pick<RemapResult, 'originalLoss' | 'remappedLoss' | 'improvement'>,
  fmt: (x: number) => string,
): string {
  const saved =
    r.originalLoss !== null && r.originalLoss > 0 && r.improvement !== null
      ? (100 * r.improvement) / r.originalLoss
      : null;
  return saved === null
    ? fmt(r.remappedLoss)
    : `${fmt(r.remappedLoss)} (${Number(saved.toPrecision(3))}% less than without the remap)`;
}

/**
 * What a prior is, in the sidebar's line under its name: the file it was imported from, else its kind ('uniform',
 * 'vector', ...).
 */
export function priorWhat(x: { prior: string | { kind: string }; points?: { file: string } }): string {
  if (x.points) return `from ${x.points.file}`;
  return typeof x.prior === 'string' ? x.prior.slice(0, 24) : x.prior.kind;
}
