import { describe, expect, it } from 'vitest';
import { hammingCubeDomain, popcount, binomialRow } from '../../../../src-worker/metric/hamming-cube';
import { diameter, domainLabels } from '../../../../src-worker/metric/domain';
import { expectStructure, mechError } from '../../support/metric-helpers';

describe('Hamming cube', () => {
  it('labels bit strings and counts differing bits', () => {
    const h = hammingCubeDomain(3);
    expect(h.n).toBe(8);
    expect(h.spec).toBe('hamming:3');
    expect(domainLabels(h)).toEqual(['000', '001', '010', '011', '100', '101', '110', '111']);
    expect(h.distance(0b000, 0b111)).toBe(3);
    expect(h.distance(0b101, 0b110)).toBe(2);
    expect(diameter(h)).toBe(3);
    expect(popcount(2 ** 30 - 1)).toBe(30);
  });

  it('structure: bit-flip edges, ball sizes C(B,r), Kronecker product of clique:2, Z_2^B lattice', () => {
    for (const B of [1, 2, 4]) {
      const h = hammingCubeDomain(B);
      expect(h.structure.edges!.from.length).toBe(B * 2 ** (B - 1));
      expectStructure(h, { edges: true, ballSizes: true, product: true, lattice: true });
      expect(h.structure.product!.factor.spec).toBe('clique:2');
      expect(h.structure.product!.combine).toBe('sum');
    }
    expect(Array.from(binomialRow(5))).toEqual([1, 5, 10, 10, 5, 1]);
    expect(Array.from(hammingCubeDomain(4).structure.ballSizes!.count)).toEqual([1, 4, 6, 4, 1]);
  });

  it('stays implicit for large B and refuses B > 30', () => {
    const h = hammingCubeDomain(30);
    expect(h.n).toBe(2 ** 30);
    expect(h.distance(0, 2 ** 30 - 1)).toBe(30);
    expect(h.label(5)).toBe('0'.repeat(27) + '101');
    expect(mechError(() => hammingCubeDomain(31), 'too-large').message).toMatch(/31 bits has 2\^31 points/);
    expect(mechError(() => hammingCubeDomain(28).structure.edges, 'too-large').message).toBe(
      'edge list of the 28-bit Hamming cube would have 3758096384 edges, over the limit of 134217728; use the metric directly or a smaller domain',
    );
    mechError(() => hammingCubeDomain(0), 'invalid-input');
    mechError(() => hammingCubeDomain(2.5), 'invalid-input');
  });
});
