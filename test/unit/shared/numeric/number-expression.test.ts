import { describe, expect, it } from 'vitest';
import { evaluateNumberExpression } from '../../../../src-shared/numeric/number-expression';

const value = (t: string): number => {
  const r = evaluateNumberExpression(t);
  if (!r.ok) throw new Error(`${t}: ${r.problem}`);
  return r.value;
};
const problem = (t: string): string => {
  const r = evaluateNumberExpression(t);
  if (r.ok) throw new Error(`${t} evaluated to ${r.value}`);
  return r.problem;
};

describe('number expressions', () => {
  it('evaluates what users type for eps', () => {
    expect(value('ln 4')).toBe(Math.log(4));
    expect(value('ln(4)')).toBe(Math.log(4));
    expect(value('LN 4')).toBe(Math.log(4));
    expect(value('ln(2)/2')).toBe(Math.log(2) / 2);
    expect(value('ln 2 / 2')).toBe(Math.log(2) / 2);
    expect(value('2*ln 3')).toBe(2 * Math.log(3));
    expect(value('0.5')).toBe(0.5);
    expect(value(' 1e-3 ')).toBe(0.001);
    expect(value('e^-1')).toBe(Math.E ** -1);
    expect(value('2^3^2')).toBe(512);
    expect(value('-2^2')).toBe(-4);
    expect(value('log2(8)')).toBe(3);
    expect(value('log10 1000')).toBeCloseTo(3, 15);
    expect(value('exp(ln 3)')).toBeCloseTo(3, 14);
    expect(value('sqrt(2)*pi')).toBe(Math.SQRT2 * Math.PI);
    expect(value('1 - 2 - 3')).toBe(-4);
    expect(value('8 / 4 / 2')).toBe(1);
    expect(value('(1 + 2) * 3')).toBe(9);
  });

  it('refuses with a reason what is not a finite number', () => {
    expect(problem('')).toMatch(/empty/);
    expect(problem('ln')).toMatch(/ends too early/);
    expect(problem('ln 0')).toMatch(/positive argument/);
    expect(problem('ln(-1)')).toMatch(/positive argument/);
    expect(problem('1/0')).toMatch(/divides by 0/);
    expect(problem('1e999')).toMatch(/range/);
    expect(problem('0x1A')).toMatch(/not a known name|unexpected/);
    expect(problem('Infinity')).toMatch(/not a known name/);
    expect(problem('(1 + 2')).toMatch(/without its '\)'/);
    expect(problem('1 2')).toMatch(/unexpected '2'/);
    expect(problem('exp(1000)')).toMatch(/not a finite number/);
    expect(problem('hello')).toMatch(/'hello' is not a known name/);
    expect(problem('2 $ 3')).toMatch(/unexpected '\$'/);
    expect(problem('sqrt(-4)')).toMatch(/non-negative/);
  });
});
