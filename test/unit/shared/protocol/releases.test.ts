/**
 * The release log's arithmetic: releases of one population add their eps; the budget of a population; refusal past it.
 */
import { describe, expect, it } from 'vitest';
import {
  budgetOf,
  budgetState,
  overBudgetText,
  populationOfHash,
  projectSchema,
  spentOn,
  type Release,
} from '../../../../src-shared/protocol/index';

const file = { name: 'in.csv', size: 10, sha256: 'a'.repeat(64) };
const rel = (population: string, epsilon: number): Release => ({
  mechanism: 'm',
  epsilon,
  population,
  input: file,
  output: { ...file, name: 'out.csv' },
  rows: 3,
  randomness: 'crypto',
  date: '2026-01-01T00:00:00.000Z',
});

describe('composition of releases', () => {
  it('adds the eps of the releases of the same population only', () => {
    const log = [rel('a', 0.5), rel('b', 2), rel('a', 0.25), rel(populationOfHash('f'.repeat(64)), 1)];
    expect(spentOn(log, 'a')).toBe(0.75);
    expect(spentOn(log, 'b')).toBe(2);
    expect(spentOn(log, `sha256:${'f'.repeat(64)}`)).toBe(1);
    expect(spentOn(log, 'c')).toBe(0);
    expect(spentOn(undefined, 'a')).toBe(0);
  });

  it("a population's own budget wins over the one for all; none set is null", () => {
    const b = { all: 3, populations: { a: 1 } };
    expect(budgetOf(b, 'a')).toBe(1);
    expect(budgetOf(b, 'z')).toBe(3);
    expect(budgetOf({ populations: { a: 1 } }, 'z')).toBeNull();
    expect(budgetOf(undefined, 'a')).toBeNull();
  });

  it('is over only when spent + eps exceeds the budget (reaching it exactly is allowed), decided on the float sum', () => {
    const log = [rel('a', 0.5), rel('a', 0.25)];
    expect(budgetState(log, { all: 1 }, 'a', 0.25)).toEqual({
      population: 'a',
      spent: 0.75,
      after: 1,
      budget: 1,
      over: false,
    });
    expect(budgetState(log, { all: 1 }, 'a', 0.26).over).toBe(true);
    // 0.1 + 0.2 rounds to 0.30000000000000004 > 0.3: refused (the safe side)
    expect(budgetState([rel('a', 0.1)], { all: 0.3 }, 'a', 0.2).over).toBe(true);
    expect(budgetState(log, undefined, 'a', 100).over).toBe(false);
  });

  it('states the refusal in one line', () => {
    const s = budgetState([rel('clinic', 0.75)], { all: 1 }, 'clinic', 0.5);
    expect(overBudgetText(s, String)).toBe(
      "privacy budget exceeded for 'clinic': spent 0.75 + this release 0.5 = 1.25 > budget 1",
    );
    const h = budgetState([], { all: 0.1 }, populationOfHash('0123456789abcdef'.repeat(4)), 0.5);
    expect(overBudgetText(h, String)).toBe(
      'privacy budget exceeded for the data set sha256:0123456789ab...: spent 0 + this release 0.5 = 0.5 > budget 0.1',
    );
  });

  it('a project keeps its releases and budget; old projects without them still parse', () => {
    const base = { version: 1, name: 'p', domains: [] };
    expect(projectSchema.parse(base).releases).toBeUndefined();
    const p = projectSchema.parse({ ...base, releases: [rel('a', 1)], privacyBudget: { all: 2 } });
    expect(p.releases).toHaveLength(1);
    expect(projectSchema.safeParse({ ...base, privacyBudget: { all: 0 } }).success).toBe(false);
    expect(projectSchema.safeParse({ ...base, releases: [{ ...rel('a', 1), randomness: 'dice' }] }).success).toBe(
      false,
    );
  });
});
