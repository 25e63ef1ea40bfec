/** The Apply view's budget helpers: the population of a release, the budget fields' edits, the data set's hash. */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { budgetValue, populationFor, sha256OfText, withBudget } from '../../../../src-renderer/lib/release-budget';

describe('the Apply view budget', () => {
  it('names the population: the name typed, else the data set by its hash, else none', () => {
    expect(populationFor('  clinic ', 'ab')).toBe('clinic');
    expect(populationFor('', 'ab')).toBe('sha256:ab');
    expect(populationFor(' ', null)).toBeNull();
  });

  it('hashes the secrets text as the host writes it (UTF-8)', async () => {
    const text = 'lat,lon\n48.85,2.35\nZürich\n';
    expect(await sha256OfText(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });

  it('sets and clears the budget for all and per population, dropping what is left empty', () => {
    expect(budgetValue('1.5')).toBe(1.5);
    expect([budgetValue(''), budgetValue('0'), budgetValue('-1'), budgetValue('x')]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const a = withBudget(undefined, null, 2);
    expect(a).toEqual({ all: 2 });
    const b = withBudget(a, 'clinic', 1);
    expect(b).toEqual({ all: 2, populations: { clinic: 1 } });
    expect(withBudget(b, 'clinic', undefined)).toEqual({ all: 2 });
    expect(withBudget(withBudget(b, null, undefined), 'clinic', undefined)).toBeUndefined();
    expect(b).toEqual({ all: 2, populations: { clinic: 1 } }); // not mutated
  });
});
