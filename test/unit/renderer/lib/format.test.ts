/** Elapsed times as people read them: rounded before they are split into minutes and seconds. */
import { describe, expect, it } from 'vitest';
import { fmtMs } from '../../../../src-renderer/lib/format';

describe('fmtMs', () => {
  it('milliseconds, seconds, minutes and hours, never "60 s" or "1000 ms"', () => {
    expect([0, 12.4, 999.4].map(fmtMs)).toEqual(['0 ms', '12 ms', '999 ms']);
    expect([999.6, 1000, 59_940].map(fmtMs)).toEqual(['1.0 s', '1.0 s', '59.9 s']);
    expect([59_960, 60_000, 119_600, 239_600, 3_599_600].map(fmtMs)).toEqual([
      '1 min 0 s',
      '1 min 0 s',
      '2 min 0 s',
      '4 min 0 s',
      '1 h 0 min',
    ]);
    expect([3_723_000, 7_380_000].map(fmtMs)).toEqual(['1 h 2 min', '2 h 3 min']);
  });
});
