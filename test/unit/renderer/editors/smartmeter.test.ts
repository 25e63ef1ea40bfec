import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  blindMae,
  decodeTrace,
  encodeTrace,
  envelope,
  errorFigures,
  formatTime,
  levelsProblem,
  noiseWarning,
  parseTraceCsv,
  quantise,
  unitOfHeader,
} from '../../../../src-renderer/editors/smartmeter';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';

const DAY = readFileSync(join(__dirname, '../../../../resources/data/smart-meter-day.csv'), 'utf8');

describe('smart meter: time column and unit kept', () => {
  it('reads the day trace: 8,640 readings at 10 s from 00:00:00 to 23:59:50, in W', () => {
    const r = parseTraceCsv(DAY);
    if (!r.ok) throw new Error(r.error);
    expect(r.values).toHaveLength(8640);
    expect(r.values[0]).toBe(56.2);
    expect(r.timeKind).toBe('clock');
    expect(r.times![1]! - r.times![0]!).toBe(10);
    expect(r.times!.at(-1)).toBe(86_390);
    expect([r.timeLabel, r.valueLabel, r.unit]).toEqual(['time', 'watts', 'W']);
    expect(formatTime(r.times!.at(-1)!, 'clock', true)).toBe('23:59:50');
  });

  it('units from headers; times as clock, dates or numbers; clock times continue past midnight; bad times named', () => {
    expect(['power (W)', 'energy [kWh]', 'consumption_kWh', 'kw', 'reading'].map(unitOfHeader)).toEqual([
      'W',
      'kWh',
      'kWh',
      'kW',
      undefined,
    ]);
    const d = parseTraceCsv('timestamp,power (kW)\n2024-03-01T23:00:00Z,1.5\n2024-03-02T00:00:00Z,0.5\n');
    expect(d).toMatchObject({
      ok: true,
      timeKind: 'date',
      unit: 'kW',
      values: [1.5, 0.5],
      times: [Date.UTC(2024, 2, 1, 23), Date.UTC(2024, 2, 2, 0)],
    });
    expect(formatTime(Date.UTC(2024, 2, 2, 0, 30), 'date')).toBe('2024-03-02 00:30');
    const m = parseTraceCsv('23:59:50,1\n00:00:00,2\n00:00:10,3\n');
    expect(m).toMatchObject({ ok: true, times: [86_390, 86_400, 86_410] });
    expect(formatTime(86_410, 'clock', true)).toBe('00:00:10 (+1d)');
    expect([formatTime(86_400, 'clock'), formatTime(7200, 'clock'), formatTime(2 * 86_400, 'clock')]).toEqual([
      '24:00',
      '02:00',
      '24:00 (+1d)',
    ]);
    expect(parseTraceCsv('t,v\n10:00,1\nlater,2\n')).toEqual({
      ok: false,
      error: "line 3: 'later' is not a time (HH:MM:SS, a date such as 2024-01-31T08:00 or a number)",
    });
    expect(parseTraceCsv('t,v\n1,1\n1,2\n')).toEqual({
      ok: false,
      error: "line 3: time '1' does not come after the previous reading's",
    });
    expect(parseTraceCsv('1\n2\n3\n')).toEqual({ ok: true, values: [1, 2, 3] });
  });

  it('kept through the project: encode/decode round trip (evenly spaced times stored as start+step), old form still read', () => {
    const r = parseTraceCsv(DAY);
    if (!r.ok) throw new Error(r.error);
    const { ok: _ok, ...t } = r;
    const text = encodeTrace(t);
    expect(text.endsWith(';unit=W;value=watts;tlabel=time;time=clock:0+10')).toBe(true);
    expect(decodeTrace(text)).toEqual(t);
    const uneven = { values: [1, 2, 3], times: [0, 5, 7], timeKind: 'number' as const, unit: 'kW h;x' };
    expect(decodeTrace(encodeTrace(uneven))).toEqual(uneven);
    expect(decodeTrace('trace:1,2,3')).toEqual({ values: [1, 2, 3] });
    expect(decodeTrace('a comment')).toBeNull();
  });
});

describe('smart meter: levels, error figures, noise warning, envelope', () => {
  it('0 or 1 levels get a plain message, 2..64 none', () => {
    expect(levelsProblem(1)).toMatch(
      /^1 level: a trace needs at least 2 quantisation levels \(with one level every reading is the same value\)/,
    );
    expect(levelsProblem(0)).toMatch(/^0 levels: a trace needs at least 2/);
    expect(levelsProblem(2.5)).toMatch(/whole number from 2 to 64/);
    expect(levelsProblem(Number.NaN)).toMatch(/whole number/);
    expect(levelsProblem(65)).toMatch(/at most 64/);
    expect(levelsProblem(2)).toBeNull();
    expect(levelsProblem(64)).toBeNull();
  });

  it('mean absolute and RMS error against a brute-force recomputation', () => {
    const rand = seededRandom(7);
    const truth = Array.from({ length: 1000 }, () => 100 * rand());
    const rel = truth.map((v) => v + 20 * (rand() - 0.5));
    const f = errorFigures(truth, rel);
    let a = 0;
    let q = 0;
    for (let i = 0; i < truth.length; i++) {
      a += Math.abs(truth[i]! - rel[i]!);
      q += (truth[i]! - rel[i]!) ** 2;
    }
    expect(f.mae).toBeCloseTo(a / 1000, 12);
    expect(f.rmse).toBeCloseTo(Math.sqrt(q / 1000), 12);
    expect(f.rmse).toBeGreaterThanOrEqual(f.mae);
    expect(errorFigures([1, 2], [2, 4])).toEqual({ mae: 1.5, rmse: Math.sqrt(2.5), n: 2 });
    expect(() => errorFigures([1, 2], [1])).toThrow(/same length/);
    // a release ignoring the trace: each of the levels equally likely
    const t = quantise([0, 10, 30], 4); // levels at 0, 10, 20, 30
    expect(blindMae([0, 10, 30], t, 4)).toBeCloseTo(
      ((0 + 10 + 20 + 30) / 4 + (10 + 0 + 10 + 20) / 4 + (30 + 20 + 10 + 0) / 4) / 3,
      12,
    );
  });

  it('warns when eps per reading makes the release noise: d∞ over 8,640 readings at eps 2 gives 0.00023 per reading', () => {
    const w = noiseWarning(2, 8640, 8, 'dinf')!;
    expect(w.perReading).toBeCloseTo(2 / 8640, 15);
    expect(Number(w.perReading.toPrecision(2))).toBe(0.00023);
    expect(w.spread).toBeCloseTo((7 * 2) / 8640, 15);
    expect(w.needed).toBeCloseTo(8640 / 7, 9);
    // the suggested eps is exactly where the warning stops
    expect(noiseWarning(w.needed, 8640, 8, 'dinf')).toBeNull();
    expect(noiseWarning(w.needed * 0.999, 8640, 8, 'dinf')).not.toBeNull();
    // d1: each reading gets eps
    expect(noiseWarning(2, 8640, 8, 'd1')).toBeNull();
    expect(noiseWarning(0.1, 24, 8, 'd1')).toMatchObject({ perReading: 0.1, needed: 1 / 7 });
  });

  it('min/max envelope: per bucket the min, max and mean of its readings (brute force), every reading in exactly one bucket', () => {
    const rand = seededRandom(3);
    const n = 8640;
    const y = Float64Array.from({ length: n }, () => rand() * 1000);
    const x = Float64Array.from({ length: n }, (_, i) => 10 * i);
    const e = envelope(x, y, 100, 8000, 400);
    expect(e.min).toHaveLength(400);
    let covered = 0;
    for (let k = 0; k < 400; k++) {
      const a = 100 + Math.floor((k * 7900) / 400);
      const b = 100 + Math.floor(((k + 1) * 7900) / 400);
      covered += b - a;
      const part = Array.from(y.subarray(a, b));
      expect(e.x[k]).toBe(x[a]);
      expect(e.min[k]).toBe(Math.min(...part));
      expect(e.max[k]).toBe(Math.max(...part));
      expect(e.mean[k]).toBeCloseTo(part.reduce((s, v) => s + v, 0) / part.length, 9);
    }
    expect(covered).toBe(7900);
    // zoomed in to fewer readings than buckets: each reading is its own point
    const z = envelope(x, y, 10, 15, 400);
    expect(Array.from(z.mean)).toEqual(Array.from(y.subarray(10, 15)));
    expect(Array.from(z.min)).toEqual(Array.from(z.max));
    expect(envelope(x, y, 5, 5, 10).x).toHaveLength(0);
  });
});
