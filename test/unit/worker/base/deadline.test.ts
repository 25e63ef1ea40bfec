/** The job's budget: one start, the reserve, a share of its span and the seconds left, all counted from that start. */
import { describe, expect, it } from 'vitest';
import { Deadline } from '../../../../src-worker/base/deadline';

describe('Deadline', () => {
  it('a limit counts from its start: when it passes and what is left', () => {
    const d = Deadline.after(30, 1000);
    expect(d.limited).toBe(true);
    expect(d.startedAt).toBe(1000);
    expect(d.at).toBe(31_000);
    expect(d.left(11_000)).toBe(20);
    expect(d.left(41_000)).toBe(-10);
  });

  it('without a limit it never passes, and what is taken from it has none either', () => {
    const d = Deadline.after(undefined, 1000);
    expect(d.limited).toBe(false);
    expect(d.at).toBe(Infinity);
    expect(d.left(1e9)).toBe(Infinity);
    expect(d.share(0.2, 5000).limited).toBe(false);
    expect(d.share(0.2, 5000).startedAt).toBe(5000);
    expect(d.from(5000, 12).limited).toBe(false);
  });

  it('the reserve keeps the start and ends earlier; a share and a budget start when they are taken', () => {
    const d = Deadline.after(30, 1000);
    const r = d.reserve(4);
    expect([r.startedAt, r.seconds, r.at]).toEqual([1000, 26, 27_000]);
    const s = d.share(0.2, 3000);
    expect([s.startedAt, s.seconds, s.at]).toEqual([3000, 6, 9000]);
    // a share of a share: of the first share's span, from its own start
    const ss = s.share(0.2, 4000);
    expect(ss.seconds).toBeCloseTo(1.2, 12);
    expect(ss.startedAt).toBe(4000);
    const b = d.from(6000, 12);
    expect([b.startedAt, b.at]).toEqual([6000, 18_000]);
  });
});
