/**
 * A case-study ChartSpec (protocol/casestudy.ts) as a Chart.js configuration:
 * pure data, no canvas, so the PNG renderer (render-chart.ts) and the app can
 * draw the same picture. Register the line/bar controllers, linear,
 * logarithmic and category scales, Legend and Title before use.
 */
import type { Chart, ChartConfiguration, LegendItem, PointStyle } from 'chart.js';
import type { ChartSpec } from '../protocol/index';

/**
 * Colour-blind-safe palette (Okabe-Ito), ordered so that the first five are far apart: orange (#E69F00) only
 * after black (beside vermilion it reads as the same colour in thin lines and markers), sky blue after blue's
 * far neighbours, then grey.
 */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#000000', '#E69F00', '#56B4E9', '#999999'];

/** Characters per title line before it wraps (Chart.js clips a long title at both ends of a narrow chart). */
const TITLE_WIDTH = 56;

/**
 * Bar charts with more categories than this, or with a category name longer than LONG_CATEGORY characters,
 * are drawn with horizontal bars: the names then read on one line each instead of rotated and clipped.
 */
const MAX_UPRIGHT_CATEGORIES = 6;
const LONG_CATEGORY = 14;
/** Pixels per category row of a horizontal bar chart, per series in it (at least MIN_ROW_PX). */
const ROW_PX_PER_SERIES = 13;
const MIN_ROW_PX = 24;

/**
 * Line series whose values differ by at most this share of the axis's span at every x are one curve on screen:
 * they are drawn once under one legend entry that names them all (else the last drawn hides the others while the
 * legend promises several lines).
 */
const COINCIDE_SHARE = 0.004;

function withAlpha(hex: string, a: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${a})`;
}

/**
 * Legend entries of a line chart drawn like their series: a line in the
 * series' colour, width and dash (series with markers are lines too).
 * Chart.js's default takes the style of the first point, which loses the dash.
 */
export function lineLegend(chart: Chart): LegendItem[] {
  const color = chart.legend?.options.labels.color;
  return chart.data.datasets.map((ds, i) => {
    const d = ds as {
      label?: string;
      borderColor?: string;
      backgroundColor?: string;
      borderDash?: number[];
      borderWidth?: number;
      pointRadius?: number;
    };
    // a series drawn with markers gets a thick stroke, so a thin or hidden line still shows its colour
    const w = d.borderWidth ?? 2;
    return {
      text: d.label ?? '',
      fillStyle: d.backgroundColor,
      strokeStyle: d.borderColor,
      lineWidth: typeof d.pointRadius === 'number' && d.pointRadius >= 3 ? Math.max(4, w) : w,
      lineDash: d.borderDash ?? [],
      pointStyle: 'line' as PointStyle,
      hidden: !chart.isDatasetVisible(i),
      datasetIndex: i,
      ...(color !== undefined ? { fontColor: color as string } : {}),
    };
  });
}

/**
 * Lines broken at spaces to at most `width` characters (Chart.js squeezes a long title line instead of wrapping it);
 * continuation lines start with `indent`.
 */
function wrapLines(lines: readonly string[], width: number, indent = '  '): string[] {
  const out: string[] = [];
  for (const line of lines) {
    let cur = '';
    for (const w of line.split(' ')) {
      if (cur && cur.length + 1 + w.length > width) {
        out.push(cur);
        cur = indent + w;
      } else cur = cur ? `${cur} ${w}` : w;
    }
    out.push(cur);
  }
  return out;
}

/** Whether a bar chart is drawn with horizontal bars (see MAX_UPRIGHT_CATEGORIES). */
export function horizontalBars(spec: ChartSpec): boolean {
  if (spec.type !== 'bar') return false;
  const cats = barCategories(spec);
  return cats.length > MAX_UPRIGHT_CATEGORIES || cats.some((c) => c.length > LONG_CATEGORY);
}

function barCategories(spec: ChartSpec): string[] {
  return spec.categories ?? spec.series[0]?.x.map(String) ?? [];
}

/**
 * The height a chart needs at `base` px for an ordinary chart: horizontal bar charts grow with their categories and
 * series.
 */
export function chartHeight(spec: ChartSpec, base: number): number {
  if (!horizontalBars(spec)) return base;
  const rows = barCategories(spec).length * Math.max(MIN_ROW_PX, ROW_PX_PER_SERIES * spec.series.length);
  return Math.max(base, rows + 150 + 16 * (spec.notes?.length ?? 0));
}

/**
 * The series of a line chart with coinciding ones merged (COINCIDE_SHARE of the y span, same x): the first of a
 * group is kept, labelled with every member's label, plus a note saying which curves coincide and by how little
 * they differ. Series with markers are never merged (their points are the message).
 */
export function mergeCoincidingSeries(spec: ChartSpec): { series: ChartSpec['series']; notes: string[] } {
  const ys = spec.series.flatMap((s) => s.y.filter((v): v is number => v !== null && Number.isFinite(v)));
  const span = ys.length ? Math.max(...ys) - Math.min(...ys) : 0;
  const tol = span * COINCIDE_SHARE;
  const same = (a: ChartSpec['series'][number], b: ChartSpec['series'][number]): number | null => {
    if (a.points || b.points || a.x.length !== b.x.length || (a.dashed ?? false) !== (b.dashed ?? false)) return null;
    let worst = 0;
    for (let i = 0; i < a.x.length; i++) {
      if (a.x[i] !== b.x[i]) return null;
      const u = a.y[i] ?? null;
      const v = b.y[i] ?? null;
      if (u === null || v === null) {
        if (u !== v) return null;
        continue;
      }
      const d = Math.abs(u - v);
      if (!(d <= tol)) return null;
      worst = Math.max(worst, d);
    }
    return worst;
  };
  const used = new Array<boolean>(spec.series.length).fill(false);
  const series: ChartSpec['series'] = [];
  const notes: string[] = [];
  spec.series.forEach((s, i) => {
    if (used[i]) return;
    const group = [s];
    let worst = 0;
    for (let j = i + 1; j < spec.series.length; j++) {
      const d = used[j] ? null : same(s, spec.series[j]!);
      if (d === null) continue;
      used[j] = true;
      group.push(spec.series[j]!);
      worst = Math.max(worst, d);
    }
    if (group.length === 1) {
      series.push(s);
      return;
    }
    const label = group.map((g) => g.label).join(' | ');
    series.push({ ...s, label });
    notes.push(`${group.map((g) => g.label).join(', ')}: one curve (they differ by at most ${worst.toPrecision(2)})`);
  });
  return { series, notes };
}

export function chartConfig(input: ChartSpec): ChartConfiguration {
  const merged = input.type === 'line' ? mergeCoincidingSeries(input) : { series: input.series, notes: [] };
  const spec: ChartSpec = merged.notes.length
    ? { ...input, series: merged.series, notes: [...(input.notes ?? []), ...merged.notes] }
    : input;
  const common = {
    animation: false as const,
    responsive: false,
    devicePixelRatio: 1,
    plugins: {
      title: { display: true, text: wrapLines([spec.title], TITLE_WIDTH, ''), font: { size: 16 } },
      // notes under the title: why a curve has no point somewhere (never only in a tooltip)
      ...(spec.notes?.length
        ? {
            subtitle: {
              display: true,
              text: wrapLines(spec.notes, 110),
              color: '#8a4b08',
              font: { size: 12 },
              padding: { bottom: 8 },
            },
          }
        : {}),
      legend: {
        display: spec.series.length > 1 || spec.type === 'line',
        position: 'bottom' as const,
        // line charts: each entry drawn as its line (dashed series look dashed) or its marker
        ...(spec.type === 'line'
          ? { labels: { usePointStyle: true, pointStyleWidth: 30, generateLabels: lineLegend } }
          : {}),
      },
    },
  };
  if (spec.type === 'bar') {
    const cats = barCategories(spec);
    const flat = horizontalBars(spec);
    const categoryAxis = {
      title: { display: true, text: spec.xLabel },
      ticks: { autoSkip: false, maxRotation: flat ? 0 : 30, minRotation: 0 },
    };
    const valueAxis = {
      title: { display: true, text: spec.yLabel },
      ...(spec.yMin !== undefined ? { min: spec.yMin } : {}),
      ...(spec.yMax !== undefined ? { max: spec.yMax } : {}),
    };
    return {
      type: 'bar',
      data: {
        labels: cats,
        datasets: spec.series.map((s, k) => {
          const y: (number | null)[] = cats.map(() => null);
          s.x.forEach((xi, i) => {
            if (xi >= 0 && xi < cats.length) y[xi] = s.y[i] ?? null;
          });
          const c = s.color ?? PALETTE[k % PALETTE.length]!;
          return {
            label: s.label,
            data: y,
            backgroundColor: c.startsWith('#') ? withAlpha(c, 0.8) : c,
            borderColor: c,
            borderWidth: 1,
          };
        }),
      },
      options: {
        ...common,
        ...(flat ? { indexAxis: 'y' as const } : {}),
        scales: flat ? { y: categoryAxis, x: valueAxis } : { x: categoryAxis, y: valueAxis },
      },
    };
  }
  return {
    type: 'line',
    data: {
      datasets: spec.series.map((s, k) => {
        const c = s.color ?? PALETTE[k % PALETTE.length]!;
        return {
          // the first series is drawn on top; onTop series (bounds) above all of them
          order: s.onTop ? -1 : k,
          label: s.label,
          data: s.x.map((x, i) => ({ x, y: s.y[i] ?? null })) as { x: number; y: number }[],
          borderColor: c,
          backgroundColor: c,
          // markers hollow: a line under them (a curve that attains a bound) stays visible
          ...(s.points ? { pointBackgroundColor: '#ffffff', pointBorderWidth: 1.5 } : {}),
          borderWidth: s.width ?? 2,
          borderDash: s.dashed ? [6, 4] : [],
          pointRadius: s.points ? 3.5 : 0,
          pointStyle: s.points ? ('circle' as const) : ('line' as const),
          showLine: true,
          spanGaps: false,
          tension: 0,
        };
      }),
    },
    options: {
      ...common,
      parsing: false,
      normalized: true,
      scales: {
        x: { type: spec.xLog ? 'logarithmic' : 'linear', title: { display: true, text: spec.xLabel } },
        y: {
          type: spec.yLog ? 'logarithmic' : 'linear',
          title: { display: true, text: spec.yLabel },
          ...(spec.yMin !== undefined && !spec.yLog ? { min: spec.yMin } : {}),
          ...(spec.yMax !== undefined ? { max: spec.yMax } : {}),
        },
      },
    },
  };
}
