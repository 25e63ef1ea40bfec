import { describe, expect, it } from 'vitest';
import { resized } from '../../../../src-worker/numeric/typed-arrays';

describe('resized', () => {
  it('keeps the type, copies the entries and zero-fills past the end', () => {
    const f = resized(Float64Array.of(1.5, -2), 4);
    expect(f).toBeInstanceOf(Float64Array);
    expect(Array.from(f)).toEqual([1.5, -2, 0, 0]);
    const i = resized(Int32Array.of(7, 8, 9), 5);
    expect(i).toBeInstanceOf(Int32Array);
    expect(Array.from(i)).toEqual([7, 8, 9, 0, 0]);
  });

  it('cuts to a smaller length and never shares the buffer', () => {
    const a = Float64Array.of(1, 2, 3);
    const b = resized(a, 2);
    expect(Array.from(b)).toEqual([1, 2]);
    b[0] = 5;
    expect(a[0]).toBe(1);
  });
});
