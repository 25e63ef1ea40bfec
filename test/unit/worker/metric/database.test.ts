import { describe, expect, it } from 'vitest';
import { databaseDomain, databaseValueDomain, DATABASE_METRICS } from '../../../../src-worker/metric/database';
import { diameter, domainLabels } from '../../../../src-worker/metric/domain';
import { expectStructure, mechError } from '../../support/metric-helpers';

describe('database domains V^u', () => {
  it('labels tuples, encodes and decodes', () => {
    const db = databaseDomain(3, 4);
    expect(db.n).toBe(64);
    expect(db.spec).toBe('db:3,4');
    expect(db.label(0)).toBe('(0,0,0)');
    expect(db.label(7)).toBe('(0,1,3)');
    expect(db.encode([0, 1, 3])).toBe(7);
    expect(Array.from(db.decode(63))).toEqual([3, 3, 3]);
    const ab = databaseDomain(2, 2, { absent: true });
    expect(domainLabels(ab)).toEqual(['(0,0)', '(0,1)', '(0,⊥)', '(1,0)', '(1,1)', '(1,⊥)', '(⊥,0)', '(⊥,1)', '(⊥,⊥)']);
    mechError(() => db.encode([0, 4, 0]), 'invalid-input');
    mechError(() => db.encode([0, 1]), 'invalid-input');
  });

  it('distances for each metric on (0,1,3) vs (2,1,0), values 0..3', () => {
    const x = [0, 1, 3];
    const y = [2, 1, 0];
    const d = (metric: (typeof DATABASE_METRICS)[number]) => {
      const db = databaseDomain(3, 4, { metric });
      return db.distance(db.encode(x), db.encode(y));
    };
    expect(d('hamming')).toBe(2);
    expect(d('manhattan')).toBe(5);
    expect(d('normalised')).toBeCloseTo(5 / 3, 14);
    expect(d('max')).toBe(3);
  });

  it('places the absent value as documented', () => {
    // v = 4 values, D = 3; x = (⊥,1), y = (2,1), z = (0,⊥)
    const spec = (metric: (typeof DATABASE_METRICS)[number]) => databaseDomain(2, 4, { metric, absent: true });
    const idx = (db: ReturnType<typeof spec>, t: number[]) => db.encode(t);
    for (const [metric, xy, xz] of [
      ['hamming', 1, 2],
      ['manhattan', 3, 3 + 3],
      ['normalised', 1, 2],
      ['max', 3, 3],
    ] as const) {
      const db = spec(metric);
      expect(db.distance(idx(db, [4, 1]), idx(db, [2, 1]))).toBeCloseTo(xy, 14);
      expect(db.distance(idx(db, [4, 1]), idx(db, [0, 4]))).toBeCloseTo(xz, 14);
    }
    expect(diameter(databaseDomain(2, 4, { metric: 'manhattan', absent: true }))).toBe(6);
    expect(diameter(databaseDomain(3, 4, { metric: 'normalised' }))).toBe(3);
    expect(databaseValueDomain(1, 'manhattan', true).distance(0, 1)).toBe(1); // v = 1: ⊥ at distance 1
  });

  it('structure flags reproduce the metric on small instances', () => {
    for (const metric of DATABASE_METRICS)
      for (const absent of [false, true])
        for (const [u, v] of [
          [2, 3],
          [3, 2],
          [1, 4],
        ] as const) {
          const db = databaseDomain(u, v, { metric, absent });
          expectStructure(db, {
            product: true,
            edges: !(metric === 'max' && absent),
            lattice: metric === 'hamming' || !absent,
            ballSizes: metric === 'hamming',
          });
          expect(db.structure.product!.combine).toBe(metric === 'max' ? 'max' : 'sum');
          expect(db.structure.product!.factor.n).toBe(absent ? v + 1 : v);
          expect(db.structure.singleOrbit).toBeUndefined();
        }
  });

  it('counts edges: hamming u*C(w,2)*w^(u-1), manhattan u*(v-1)*v^(u-1), max king moves', () => {
    expect(databaseDomain(3, 4).structure.edges!.from.length).toBe(3 * 6 * 16);
    expect(databaseDomain(3, 4, { metric: 'manhattan' }).structure.edges!.from.length).toBe(3 * 3 * 16);
    // king graph on 3x3: 12 orthogonal + 8 diagonal
    expect(databaseDomain(2, 3, { metric: 'max' }).structure.edges!.from.length).toBe(20);
    expect(Array.from(databaseDomain(3, 4).structure.ballSizes!.count)).toEqual([1, 9, 27, 27]);
  });

  it('refuses v^u over the limit with the size, and bad arguments', () => {
    expect(mechError(() => databaseDomain(20, 4), 'too-large').message).toBe(
      'database domain db:20,4 has 4^20 = 1099511627776 databases; at most 16777216 are supported',
    );
    expect(mechError(() => databaseDomain(3, 4, { maxPoints: 63 }), 'too-large').message).toMatch(
      /4\^3 = 64 databases; at most 63/,
    );
    expect(mechError(() => databaseDomain(200, 10), 'too-large').message).toMatch(/10\^200 = 1\.000e\+200/);
    mechError(() => databaseDomain(0, 4), 'invalid-input');
    mechError(() => databaseDomain(2, 0), 'invalid-input');
    expect(mechError(() => databaseDomain(2, 2, { metric: 'euclid' as never }), 'invalid-input').message).toMatch(
      /unknown database metric 'euclid'/,
    );
    expect(databaseDomain(3, 4, { metric: 'max', absent: true }).spec).toBe('db:3,4:metric=max:absent');
  });
});
