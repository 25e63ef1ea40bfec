import { describe, expect, it } from 'vitest';
import { decimalProblem, parseDecimal, parseDigits } from '../../../../src-shared/numeric/decimal';
import { priorInput as parsePriorText } from '../../../../src-shared/project/item-requests';
import { mechError } from '../../support/mech-error';

describe('strict decimal parser (src-shared/numeric/decimal.ts)', () => {
  it('accepts plain decimals, with sign, point and exponent, including subnormals', () => {
    for (const [t, v] of [
      ['0', 0],
      ['12', 12],
      ['-3.5', -3.5],
      ['+.25', 0.25],
      ['1.', 1],
      ['1e3', 1000],
      ['2.5E-3', 0.0025],
      ['5e-324', 5e-324],
      ['1.7976931348623157e308', 1.7976931348623157e308],
      ['0e999', 0],
      ['0.000e-5000', 0],
    ] as const) {
      expect(parseDecimal(t), t).toBe(v);
    }
  });

  it('refuses what Number() would silently accept or change', () => {
    for (const [t, why] of [
      ['', 'is empty'],
      [' ', 'is not a decimal number'],
      ['0x1A', 'is not a decimal number'],
      ['0b11', 'is not a decimal number'],
      ['0o7', 'is not a decimal number'],
      ['Infinity', 'is not a decimal number'],
      ['-Infinity', 'is not a decimal number'],
      ['NaN', 'is not a decimal number'],
      ['1e999', 'is out of the range of a 64-bit float'],
      ['-2e308', 'is out of the range of a 64-bit float'],
      ['1e-999', 'is too small to represent (it would round to 0)'],
      ['1_000', 'is not a decimal number'],
      ['1,5', 'is not a decimal number'],
      ['.', 'is not a decimal number'],
      ['e5', 'is not a decimal number'],
    ] as const) {
      expect(decimalProblem(t), t).toBe(why);
      expect(parseDecimal(t), t).toBeUndefined();
    }
  });

  it('digits only for sizes; huge values come back as floats for the size limits to refuse', () => {
    expect(parseDigits('42')).toBe(42);
    expect(parseDigits('99999999999999999999')).toBe(1e20);
    for (const t of ['', '+3', '-3', '1e3', '0x10', '3.0', ' 3', undefined])
      expect(parseDigits(t), String(t)).toBeUndefined();
  });

  it('prior lists go through it: hex, Infinity, 1e999 and empty items are refused without quoting them', () => {
    expect(parsePriorText('0.25,0.75')).toEqual({ kind: 'vector', values: [0.25, 0.75] });
    for (const t of ['0x1,0', 'Infinity,0', '1e999,0', '0.5,,0.5', 'product:0.5,0x0']) {
      mechError(() => parsePriorText(t), 'invalid-input', /item \d is not a decimal number >= 0$/, t);
    }
  });
});
