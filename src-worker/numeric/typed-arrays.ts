/**
 * A copy of `a` in a new array of the same type and length `cap`: cut to `cap`
 * entries, or zero-filled past a's end (how growable buffers double).
 */
export function resized(a: Float64Array, cap: number): Float64Array<ArrayBuffer>;
export function resized(a: Int32Array, cap: number): Int32Array<ArrayBuffer>;
export function resized(a: Float64Array | Int32Array, cap: number): Float64Array | Int32Array {
  const b = a instanceof Float64Array ? new Float64Array(cap) : new Int32Array(cap);
  b.set(a.subarray(0, Math.min(a.length, cap)));
  return b;
}
