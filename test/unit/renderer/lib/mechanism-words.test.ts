/**
 * The labels of a mechanism's figures: the two expected losses told apart, the remap's saving with its space, utility
 * in words.
 */
import { describe, expect, it } from 'vitest';
import { lossLabels, priorWhat, remapLossText, UTILITY_LABEL } from '../../../../src-renderer/lib/mechanism-words';
import { fmt } from '../../../../src-renderer/lib/format';

describe('mechanism words', () => {
  it("utility is said as what it measures, not as 'binary gain'", () => {
    expect(UTILITY_LABEL).toBe('utility: chance the best guess is the true value');
  });

  it('the loss after a further remap and the loss before it carry their own labels', () => {
    expect(lossLabels(true)).toEqual({
      shown: 'expected loss, with the remap',
      before: 'expected loss, without the remap',
    });
    expect(lossLabels(false)).toEqual({ shown: 'expected loss', before: 'expected loss, without the remap' });
  });

  it("the remap's saving is set off by a space and says against what", () => {
    expect(remapLossText({ originalLoss: 1.4223, remappedLoss: 1.12242, improvement: 0.29988 }, (x) => fmt(x, 6))).toBe(
      '1.12242 (21.1% less than without the remap)',
    );
    expect(remapLossText({ originalLoss: null, remappedLoss: 1.12242, improvement: null }, (x) => fmt(x, 6))).toBe(
      '1.12242',
    );
  });
});

describe('prior words', () => {
  it('an imported prior is named after its file, the default stays uniform', () => {
    expect(priorWhat({ prior: { kind: 'vector' }, points: { file: 'homes.csv' } })).toBe('from homes.csv');
    expect(priorWhat({ prior: 'uniform' })).toBe('uniform');
    expect(priorWhat({ prior: { kind: 'vector' } })).toBe('vector');
  });
});
