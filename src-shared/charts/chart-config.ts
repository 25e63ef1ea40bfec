/**
 * A case-study ChartSpec (protocol/casestudy.ts) as a Chart.js configuration:
 * pure data, no canvas, so the PNG renderer (render-chart.ts) and the app can
 * draw the same picture. Register the line/bar controllers, linear,
 * logarithmic and category scales, Legend and Title before use.
 */
import type { Chart, ChartConfiguration, LegendItem, PointStyle } from 'chart.js';
import type { ChartSpec } from '../protocol/casestudy';

/** Colour-blind-safe palette (Okabe-Ito), then greys. */
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#999999'];

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
    const d = ds as { label?: string; borderColor?: string; backgroundColor?: string; borderDash?: number[]; borderWidth?: number; pointRadius?: number };
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

/** Lines broken at spaces to at most `width` characters (Chart.js squeezes a long title line instead of wrapping it). */
export function wrapLines(lines: readonly string[], width: number): string[] {
  const out: string[] = [];
  for (const line of lines) {
    let cur = '';
    for (const w of line.split(' ')) {
      if (cur && cur.length + 1 + w.length > width) {
        out.push(cur);
        cur = '  ' + w;
      } else cur = cur ? `${cur} ${w}` : w;
    }
    out.push(cur);
  }
  return out;
}

export function chartConfig(spec: ChartSpec): ChartConfiguration {
  const common = {
    animation: false as const,
    responsive: false,
    devicePixelRatio: 1,
    plugins: {
      title: { display: true, text: spec.title, font: { size: 16 } },
      // notes under the title: why a curve has no point somewhere (never only in a tooltip)
      ...(spec.notes?.length
        ? { subtitle: { display: true, text: wrapLines(spec.notes, 110), color: '#8a4b08', font: { size: 12 }, padding: { bottom: 8 } } }
        : {}),
      legend: {
        display: spec.series.length > 1 || spec.type === 'line',
        position: 'bottom' as const,
        // line charts: each entry drawn as its line (dashed series look dashed) or its marker
        ...(spec.type === 'line' ? { labels: { usePointStyle: true, pointStyleWidth: 30, generateLabels: lineLegend } } : {}),
      },
    },
  };
  if (spec.type === 'bar') {
    const cats = spec.categories ?? spec.series[0]?.x.map(String) ?? [];
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
          return { label: s.label, data: y, backgroundColor: c.startsWith('#') ? withAlpha(c, 0.8) : c, borderColor: c, borderWidth: 1 };
        }),
      },
      options: {
        ...common,
        scales: {
          x: { title: { display: true, text: spec.xLabel }, ticks: { autoSkip: false, maxRotation: 30, minRotation: 0 } },
          y: {
            title: { display: true, text: spec.yLabel },
            ...(spec.yMin !== undefined ? { min: spec.yMin } : {}),
            ...(spec.yMax !== undefined ? { max: spec.yMax } : {}),
          },
        },
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
          borderColor: s.points ? c : c,
          backgroundColor: c,
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
