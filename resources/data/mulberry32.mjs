/**
 * mulberry32: small, seedable, good enough for synthetic data; the same
 * generator as src-worker/numeric/seeded-random.ts, shared by the data
 * generators here (plain .mjs, so they run with node alone).
 */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
