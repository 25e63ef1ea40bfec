/**
 * One prior grammar (src-shared/grammar/prior-spec.ts): the CLI
 * (parsePriorArg) and a project item's request, in the worker's project runner
 * and in the app alike (src-shared/project/item-requests.ts priorInput), read every file-free prior text the same way
 * and refuse the same texts with the same message.
 */
import { describe, expect, it } from 'vitest';
import { parsePriorSpecText } from '../../../../src-shared/grammar/prior-spec';
import { parsePriorArg } from '../../../../src-main/fs/inputs';
import { priorInput } from '../../../../src-shared/project/item-requests';

const outcome = (f: () => unknown): unknown => {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: (e as Error).message };
  }
};

describe('the prior grammar', () => {
  it('parses each form', () => {
    expect(parsePriorSpecText(' uniform ')).toEqual({ ok: true, prior: { kind: 'uniform' } });
    expect(parsePriorSpecText('0.25, 0.75')).toEqual({ ok: true, prior: { kind: 'vector', values: [0.25, 0.75] } });
    expect(parsePriorSpecText('1')).toEqual({ ok: true, prior: { kind: 'vector', values: [1] } });
    expect(parsePriorSpecText('product:0.5,0.5')).toEqual({ ok: true, prior: { kind: 'product', values: [0.5, 0.5] } });
    expect(parsePriorSpecText('csv:p.csv')).toEqual({ ok: true, prior: { kind: 'csv', file: 'p.csv' } });
    expect(parsePriorSpecText('points:a.csv:cell=2')).toEqual({
      ok: true,
      prior: { kind: 'points', text: 'points:a.csv:cell=2' },
    });
    expect(parsePriorSpecText('0.5,-0.5')).toEqual({ ok: false, error: 'prior: item 2 (-0.5) is negative' });
    expect(parsePriorSpecText('product:0.5,0x1')).toEqual({
      ok: false,
      error: 'product prior: item 2 is not a decimal number >= 0',
    });
    expect(parsePriorSpecText('gaussian')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^unknown prior 'gaussian': use uniform, product/),
    });
  });

  it('the CLI and the project requests (worker and app) agree on every file-free text', () => {
    for (const t of [
      'uniform',
      '0.2,0.3,0.5',
      ' 0.5 , 0.5 ',
      'product:0.3,0.7',
      '0.5,,0.5',
      '0.5,x',
      '1e999,0',
      '0.5,-0.5',
      'product:',
      'gaussian',
      '',
      '1',
    ]) {
      const cli = outcome(() => parsePriorArg(t));
      expect(
        outcome(() => priorInput(t)),
        t,
      ).toEqual(cli);
    }
  });
});
