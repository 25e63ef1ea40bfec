import { describe, expect, it } from 'vitest';
import { checkPrivacy } from '../../../../../src-worker/check/privacy-check';
import { DenseChannel, type Mechanism } from '../../../../../src-worker/mechanism/channel';
import { cascade } from '../../../../../src-worker/mechanism/combinators/cascade';
import { probabilisticChoice } from '../../../../../src-worker/mechanism/combinators/choice';
import { postProcess } from '../../../../../src-worker/mechanism/combinators/post-process';
import { restrictSecrets } from '../../../../../src-worker/mechanism/combinators/restrict';
import { exponentialMechanism } from '../../../../../src-worker/mechanism/exponential';
import { randomisedResponse } from '../../../../../src-worker/mechanism/randomised-response';
import { truncatedGeometric } from '../../../../../src-worker/mechanism/truncated-geometric';
import { Matrix } from '../../../../../src-worker/linalg/matrix';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { expectClose, maxRowSumError, mechErrorOf, rowsOf, utility } from '../../../support/mechanism-helpers';

describe('combinators (SPEC §2)', () => {
  const d = lineDomain(4);
  const tg = truncatedGeometric(d, Math.log(2));
  const rr = randomisedResponse(d, 0.5);

  it('probabilistic choice p*M + (1-p)*M: columns side by side, rows sum to 1, max of the guarantees', () => {
    const c = probabilisticChoice(0.25, tg, rr);
    expect(c.channel.cols).toBe(8);
    const a = rowsOf(tg.channel);
    const b = rowsOf(rr.channel);
    const r = rowsOf(c.channel);
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 4; j++) {
        expectClose(r[i]![j]!, 0.25 * a[i]![j]!, 1e-15);
        expectClose(r[i]![4 + j]!, 0.75 * b[i]![j]!, 1e-15);
      }
    expect(c.channel.colLabel(5)).toBe('2:1');
    expect(maxRowSumError(c.channel)).toBeLessThan(1e-15);
    expect(c.guaranteedEpsilon).toBe(Math.log(2));
    const chk = checkPrivacy(c.channel, d, Math.log(2));
    expect(chk.passes).toBe(true);
    expectClose(chk.effectiveEpsilon, Math.log(2), 1e-12);
    // utility of the choice is the mixture of utilities (columns are disjoint)
    expectClose(utility(c.channel), 0.25 * utility(tg.channel) + 0.75 * utility(rr.channel), 1e-15);
    expect(probabilisticChoice(0, tg, rr).guaranteedEpsilon).toBe(0.5);
  });

  it('restriction keeps the chosen rows in order and the guarantee on the induced metric', () => {
    const m = restrictSecrets(tg, [3, 1]);
    const a = rowsOf(tg.channel);
    expect(rowsOf(m.channel)).toEqual([a[3], a[1]]);
    expect(m.channel.rowLabel(0)).toBe('3');
    expect(m.guaranteedEpsilon).toBe(tg.guaranteedEpsilon);
  });

  it("post-processing C*P (merge outputs {0,1} and {2,3}) and cascade M then M'", () => {
    const p = Matrix.fromRows([
      [1, 0],
      [1, 0],
      [0, 1],
      [0, 1],
    ]);
    const pp = postProcess(tg, p, ['low', 'high']);
    const a = rowsOf(tg.channel);
    const r = rowsOf(pp.channel);
    for (let i = 0; i < 4; i++) {
      expectClose(r[i]![0]!, a[i]![0]! + a[i]![1]!, 1e-15);
      expectClose(r[i]![1]!, a[i]![2]! + a[i]![3]!, 1e-15);
    }
    expect(pp.channel.colLabel(1)).toBe('high');
    expect(checkPrivacy(pp.channel, d, Math.log(2)).passes).toBe(true);
    // cascade TG then exponential on the same line: C1 C2 computed by hand
    const ex = exponentialMechanism(d, 1);
    const cc = cascade(tg, ex);
    const b = rowsOf(ex.channel);
    const got = rowsOf(cc.channel);
    for (let i = 0; i < 4; i++)
      for (let k = 0; k < 4; k++) {
        let s = 0;
        for (let j = 0; j < 4; j++) s += a[i]![j]! * b[j]![k]!;
        expectClose(got[i]![k]!, s, 1e-15);
      }
    expect(cc.guaranteedEpsilon).toBe(Math.log(2));
    expect(checkPrivacy(cc.channel, d, Math.log(2)).passes).toBe(true);
  });

  it('bad input: p outside [0, 1] or NaN, dimension mismatches, non-stochastic P, bad subsets', () => {
    for (const p of [-0.1, 1.5, NaN]) {
      const e = mechErrorOf(() => probabilisticChoice(p, tg, rr));
      expect(e.code).toBe('invalid-input');
      expect(e.message).toMatch(/in \[0, 1\]/);
    }
    const other = truncatedGeometric(lineDomain(5), 1);
    expect(mechErrorOf(() => probabilisticChoice(0.5, tg, other)).message).toMatch(/4 rows vs 5 rows/);
    expect(mechErrorOf(() => postProcess(tg, Matrix.identity(3))).message).toMatch(
      /3 rows but the mechanism has 4 outputs/,
    );
    const notStochastic = Matrix.fromRows([
      [0.5, 0.4],
      [1, 0],
      [0, 1],
      [0, 1],
    ]);
    expect(mechErrorOf(() => postProcess(tg, notStochastic)).message).toMatch(/row 0 sums to 0.9/);
    expect(mechErrorOf(() => cascade(tg, other)).message).toMatch(/5 secrets but the first has 4 outputs/);
    expect(mechErrorOf(() => restrictSecrets(tg, [0, 4])).message).toMatch(/outside 0..3/);
    expect(mechErrorOf(() => restrictSecrets(tg, [1, 1])).message).toMatch(/listed twice/);
    expect(mechErrorOf(() => restrictSecrets(tg, [])).code).toBe('invalid-input');
    const relabelled: Mechanism = { ...rr, channel: new DenseChannel(Matrix.identity(4), ['a', 'b', 'c', 'd']) };
    expect(mechErrorOf(() => probabilisticChoice(0.5, tg, relabelled)).message).toMatch(/secret 0 is '0'/);
  });
});

describe('closed-form mechanisms by CLI kind name (SPEC §8)', () => {
  it('maps each kind to its construction and rejects unknown kinds', async () => {
    const { closedFormMechanism, CLOSED_FORM_KINDS } =
      await import('../../../../../src-worker/mechanism/closed-form-by-kind');
    const { gridDomain } = await import('../../../../../src-worker/metric/grid');
    const { ringDomain } = await import('../../../../../src-worker/metric/ring');
    expect(closedFormMechanism('tg', lineDomain(3), 1).kind).toBe('tg');
    expect(closedFormMechanism('planar-laplace', gridDomain(2, 2), 1).kind).toBe('planar-laplace');
    expect(closedFormMechanism('laplace', ringDomain(5), 1).guaranteedEpsilon).toBe(2);
    expect(CLOSED_FORM_KINDS.length).toBe(6);
    const e = mechErrorOf(() => closedFormMechanism('bogus' as never, lineDomain(3), 1));
    expect(e.message).toMatch(/unknown closed-form mechanism kind 'bogus'/);
  });
});
