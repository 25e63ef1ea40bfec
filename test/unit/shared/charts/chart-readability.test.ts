/**
 * Charts that read: the decisions the shared chart configuration makes for every case-study chart (horizontal bars
 * for long category names, coinciding curves drawn once, wrapped titles, hollow markers, distinct first colours),
 * the heat map's colour scale, and the smart-meter axis title.
 */
import { describe, expect, it } from 'vitest';
import {
  chartConfig,
  chartHeight,
  horizontalBars,
  mergeCoincidingSeries,
  PALETTE,
} from '../../../../src-shared/charts/chart-config';
import type { ChartSpec } from '../../../../src-shared/protocol/casestudy';
import { blockGridFromMatrix, heatPosition, heatScale } from '../../../../src-renderer/lib/matrix-view';
import { readingAxisLabel } from '../../../../src-renderer/editors/smartmeter';

const cityLike: ChartSpec = {
  id: 'city-error',
  title: 'City, population prior: expected distance error (n/a = does not exist / not computed)',
  type: 'bar',
  xLabel: 'grid and mechanism',
  yLabel: 'km',
  categories: Array.from(
    { length: 12 },
    (_, i) => `${i % 2 ? '10 x 10 (2 km cells)' : '20 x 20 (1 km cells)'}: mechanism ${i}`,
  ),
  series: [0.5, 1].map((e) => ({
    label: `eps = ${e}`,
    x: Array.from({ length: 12 }, (_, i) => i),
    y: Array.from({ length: 12 }, (_, i) => i / e),
  })),
};

describe('bar charts', () => {
  it('long or many category names: horizontal bars, a height that grows with the categories', () => {
    expect(horizontalBars(cityLike)).toBe(true);
    const cfg = chartConfig(cityLike) as unknown as {
      options: { indexAxis?: string; scales: { x: { title: { text: string } }; y: { title: { text: string } } } };
    };
    expect(cfg.options.indexAxis).toBe('y');
    // the categories on the vertical axis, the values (km) on the horizontal one
    expect(cfg.options.scales.y.title.text).toBe('grid and mechanism');
    expect(cfg.options.scales.x.title.text).toBe('km');
    // 12 categories x 2 series at 26 px a row, plus title, legend and axis
    expect(chartHeight(cityLike, 380)).toBe(12 * 26 + 150);
  });

  it('three short categories stay upright at the asked height', () => {
    const small: ChartSpec = {
      ...cityLike,
      categories: ['cities: RR', 'count: TG', 'count: ring'],
      series: cityLike.series.map((s) => ({ ...s, x: [0, 1, 2], y: [1, 2, 3] })),
    };
    expect(horizontalBars(small)).toBe(false);
    expect((chartConfig(small) as { options: { indexAxis?: string } }).options.indexAxis).toBeUndefined();
    expect(chartHeight(small, 380)).toBe(380);
  });
});

describe('line charts', () => {
  const x = [0, 10, 20, 30];
  const rr = (eps: number) => x.map((a) => 1 - (Math.exp(eps) + a) / (Math.exp(eps) + 5000));
  const spec: ChartSpec = {
    id: 'u',
    title: '(a, b)-usefulness of the earliest date: eps*d_h vs (eps/5)*d_1, a long title that has to wrap',
    type: 'line',
    xLabel: 'a',
    yLabel: 'b',
    series: [
      { label: 'RR, eps = 0.5', x, y: rr(0.5), dashed: true },
      { label: 'TG, eps = 0.5', x, y: [0.9, 0.3, 0.1, 0.03] },
      { label: 'RR, eps = 1', x, y: rr(1), dashed: true },
      { label: 'TG, eps = 1', x, y: [0.8, 0.1, 0.01, 0.001] },
      { label: 'RR, eps = 2', x, y: rr(2), dashed: true },
      { label: 'bound', x, y: [0.8, 0.1, 0.01, 0.001], points: true },
    ],
  };

  it('coinciding curves are drawn once under one legend entry naming them, with a note of how close they are', () => {
    const m = mergeCoincidingSeries(spec);
    expect(m.series.map((s) => s.label)).toEqual([
      'RR, eps = 0.5 | RR, eps = 1 | RR, eps = 2',
      'TG, eps = 0.5',
      'TG, eps = 1',
      'bound',
    ]);
    // the RR curves differ by (e^2 - e^0.5) (a + 5000 - ...) / ... : at most 1.2e-3 here, below 0.4% of the span 0.999
    const worst = Math.max(...x.map((_, i) => Math.abs(rr(0.5)[i]! - rr(2)[i]!)));
    expect(worst).toBeLessThan(0.004 * 0.999);
    expect(m.notes).toEqual([
      `RR, eps = 0.5, RR, eps = 1, RR, eps = 2: one curve (they differ by at most ${worst.toPrecision(2)})`,
    ]);
    // a marker series equal to a line is kept (its points are what it shows)
    const cfg = chartConfig(spec) as {
      data: { datasets: { label: string; pointBackgroundColor?: string }[] };
      options: { plugins: { title: { text: string[] }; subtitle?: { text: string[] } } };
    };
    expect(cfg.data.datasets.map((d) => d.label)).toHaveLength(4);
    expect(cfg.options.plugins.subtitle?.text.join(' ')).toContain('one curve');
    // hollow markers: the line they sit on stays visible
    expect(cfg.data.datasets[3]!.pointBackgroundColor).toBe('#ffffff');
    // the title wrapped to lines of at most 56 characters
    expect(cfg.options.plugins.title.text.length).toBeGreaterThan(1);
    for (const line of cfg.options.plugins.title.text) expect(line.length).toBeLessThanOrEqual(56);
  });

  it('curves further apart than 0.4% of the span stay separate', () => {
    const apart: ChartSpec = {
      ...spec,
      series: [spec.series[0]!, { ...spec.series[0]!, label: 'shifted', y: spec.series[0]!.y.map((v) => v! - 0.01) }],
    };
    expect(mergeCoincidingSeries(apart).series).toHaveLength(2);
  });
});

describe('colours', () => {
  it('the first five palette colours are far apart (RGB distance >= 75: vermilion and orange, 67 apart, read as one colour)', () => {
    const rgb = (h: string) => [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16));
    for (let i = 0; i < 5; i++)
      for (let j = i + 1; j < 5; j++) {
        const [a, b] = [rgb(PALETTE[i]!), rgb(PALETTE[j]!)];
        expect(Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!)).toBeGreaterThanOrEqual(75);
      }
  });
});

describe('heat map scale', () => {
  it('randomised response on 1,024 values: a linear scale from the smallest mean, the diagonal blocks at the top', () => {
    const n = 1024;
    const e = Math.exp(0.5);
    const data = new Float64Array(n * n).fill(1 / (e + n - 1));
    for (let i = 0; i < n; i++) data[i * n + i] = e / (e + n - 1);
    const labels = Array.from({ length: n }, (_, i) => String(i));
    const g = blockGridFromMatrix({ rows: n, cols: n, data, rowLabels: labels, colLabels: labels });
    const s = heatScale(g.means);
    expect(s.kind).toBe('range');
    // the diagonal block is the darkest, an off-diagonal one the lightest
    expect(heatPosition(g.means[0]!, s)).toBeCloseTo(1, 1);
    expect(heatPosition(g.means[1]!, s)).toBe(0);
    // under the square-root scale from 0 both were within 4% of each other: one uniform block
    expect(Math.sqrt(g.means[1]! / g.means[0]!)).toBeGreaterThan(0.96);
  });

  it('a peaked channel keeps the square-root scale from 0', () => {
    const s = heatScale([0, 0.01, 0.5, 1]);
    expect(s).toEqual({ kind: 'sqrt', lo: 0, hi: 1 });
    expect(heatPosition(0.25, s)).toBeCloseTo(0.5, 12);
    expect(heatScale([])).toEqual({ kind: 'sqrt', lo: 0, hi: 1 });
  });
});

describe('smart-meter axis title', () => {
  it('names the unit once', () => {
    expect(readingAxisLabel('power (kW)', 'kW')).toBe('power (kW)');
    expect(readingAxisLabel('energy [kWh]', 'kWh')).toBe('energy [kWh]');
    expect(readingAxisLabel('consumption_kWh', 'kWh')).toBe('consumption (kWh)');
    expect(readingAxisLabel('watts', 'W')).toBe('reading (W)');
    expect(readingAxisLabel('load', 'kW')).toBe('load (kW)');
    expect(readingAxisLabel(undefined, 'W')).toBe('reading (W)');
    expect(readingAxisLabel('load', '')).toBe('load');
  });
});
