import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../../../src-worker/numeric/min-heap';
import { weightedAllPairs } from '../../../../src-worker/metric/shortest-paths';
import { floydWarshall, randomEdges } from '../../support/metric-helpers';

/** Deterministic pseudo-random numbers (LCG) so failures reproduce. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('MinHeap', () => {
  it('pops keys in non-decreasing order with their values, growing past the initial capacity', () => {
    const rnd = lcg(7);
    const heap = new MinHeap(4);
    const keys: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const k = Math.floor(rnd() * 100); // many duplicate keys
      keys.push(k);
      heap.push(k, i);
    }
    expect(heap.size).toBe(1000);
    const seen = new Set<number>();
    let prev = -Infinity;
    while (heap.size > 0) {
      const k = heap.topKey();
      const v = heap.topValue();
      expect(heap.pop()).toBe(v);
      expect(k).toBeGreaterThanOrEqual(prev);
      expect(keys[v]).toBe(k);
      expect(seen.has(v)).toBe(false);
      seen.add(v);
      prev = k;
    }
    expect(seen.size).toBe(1000);
  });

  it('matches a sorted reference under interleaved pushes and pops', () => {
    const rnd = lcg(42);
    const heap = new MinHeap();
    const ref: number[] = [];
    for (let step = 0; step < 5000; step++) {
      if (ref.length === 0 || rnd() < 0.6) {
        const k = rnd() * 10 - 5;
        heap.push(k, step);
        ref.push(k);
      } else {
        ref.sort((a, b) => a - b);
        const expected = ref.shift()!;
        expect(heap.topKey()).toBe(expected);
        heap.pop();
      }
      expect(heap.size).toBe(ref.length);
    }
  });

  it('clear() empties the heap and it is reusable; a single entry pops to empty', () => {
    const heap = new MinHeap();
    heap.push(3, 30);
    heap.push(1, 10);
    heap.clear();
    expect(heap.size).toBe(0);
    heap.push(2, 20);
    expect(heap.topKey()).toBe(2);
    expect(heap.pop()).toBe(20);
    expect(heap.size).toBe(0);
    heap.push(5, 50);
    heap.push(-Infinity, 1);
    expect(heap.pop()).toBe(1);
    expect(heap.pop()).toBe(50);
  });

  it('lazy decrease-key: the Dijkstra of weightedAllPairs (stale heap entries skipped) gives the brute-force (Floyd-Warshall) distances', () => {
    // 120 random integer-weighted edges on 40 nodes, parallel edges included: many keys are decreased, many entries go
    // stale
    const rnd = lcg(3);
    const n = 40;
    const edges = randomEdges(n, 120, rnd, () => 1 + Math.floor(rnd() * 9));
    expect(Array.from(weightedAllPairs(n, edges))).toEqual(Array.from(floydWarshall(n, edges)));
  });
});
