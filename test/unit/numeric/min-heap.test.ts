import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../../src-worker/numeric/min-heap';

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

  it('lazy decrease-key: Dijkstra with stale entries skipped gives the brute-force (Floyd-Warshall) distances', () => {
    const rnd = lcg(3);
    const n = 40;
    const w = new Float64Array(n * n).fill(Infinity);
    for (let i = 0; i < n; i++) w[i * n + i] = 0;
    for (let e = 0; e < 120; e++) {
      const a = Math.floor(rnd() * n);
      const b = Math.floor(rnd() * n);
      if (a === b) continue;
      const c = 1 + Math.floor(rnd() * 9);
      if (c < w[a * n + b]!) w[a * n + b] = w[b * n + a] = c;
    }
    const fw = w.slice();
    for (let k = 0; k < n; k++)
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) if (fw[i * n + k]! + fw[k * n + j]! < fw[i * n + j]!) fw[i * n + j] = fw[i * n + k]! + fw[k * n + j]!;
    const heap = new MinHeap(n);
    for (let s = 0; s < n; s++) {
      const dist = new Float64Array(n).fill(Infinity);
      dist[s] = 0;
      heap.clear();
      heap.push(0, s);
      while (heap.size > 0) {
        const du = heap.topKey();
        const u = heap.pop();
        if (du > dist[u]!) continue;
        for (let v = 0; v < n; v++) {
          const c = w[u * n + v]!;
          if (c < Infinity && du + c < dist[v]!) {
            dist[v] = du + c;
            heap.push(du + c, v);
          }
        }
      }
      for (let v = 0; v < n; v++) expect(dist[v]).toBe(fw[s * n + v]);
    }
  });
});
