import { onDestroy } from 'svelte';
import { Chart, registerables, type ChartDataset, type ChartOptions } from 'chart.js';
import { MatrixController, MatrixElement } from 'chartjs-chart-matrix';
import type { DownloadOffer } from '../../src-shared/protocol/index';

let registered = false;
/** Register Chart.js controllers once (line/scatter + the matrix heat map). */
export function charts(): typeof Chart {
  if (!registered) {
    Chart.register(...registerables, MatrixController, MatrixElement);
    Chart.defaults.font.family = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
    Chart.defaults.color = '#52606d';
    Chart.defaults.animation = false;
    registered = true;
  }
  return Chart;
}

/**
 * The one Chart.js instance a component owns: `draw` destroys the previous
 * chart (Chart.js refuses a canvas still in use), makes the new one and
 * reports it through the component's `onchart` prop (the
 * parent exports it as PNG); the chart is destroyed, and null reported, when
 * the component goes. Call during component initialisation.
 */
export function ownedChart(onchart: () => ((c: Chart | null) => void) | undefined): {
  readonly current: Chart | null;
  draw(canvas: HTMLCanvasElement, make: (canvas: HTMLCanvasElement) => Chart): Chart;
} {
  let chart: Chart | null = null;
  onDestroy(() => {
    chart?.destroy();
    chart = null;
    onchart()?.(null);
  });
  return {
    get current() {
      return chart;
    },
    draw(canvas: HTMLCanvasElement, make: (canvas: HTMLCanvasElement) => Chart): Chart {
      chart?.destroy();
      chart = null;
      const c = make(canvas);
      chart = c;
      onchart()?.(c);
      return c;
    },
  };
}

/** A line chart as the page draws them: sized by its box (not its aspect ratio), not animated. */
export function lineChart(
  canvas: HTMLCanvasElement,
  datasets: ChartDataset<'line'>[],
  options: ChartOptions<'line'>,
): Chart<'line'> {
  const LineChart = charts();
  return new LineChart(canvas, {
    type: 'line',
    data: { datasets },
    options: { maintainAspectRatio: false, animation: false, ...options },
  });
}

export { heatColor } from '../../src-shared/charts/heat-color';

export const SERIES_COLORS = ['#2f6fde', '#e4572e', '#17a398', '#f3a712', '#7e57c2', '#d81b60', '#5d6d7e', '#43a047'];

export interface Series {
  /** Legend text; an empty label keeps the series out of the legend (e.g. the lower edge of a band). */
  label: string;
  data: ArrayLike<number | null>;
  /** This series' own x values (default: the chart's x). */
  x?: ArrayLike<number>;
  dashed?: boolean;
  stepped?: boolean;
  color?: string;
  /** Fill to another dataset ('-1': the previous one, a band) with this colour. */
  fill?: string | false;
  fillColor?: string;
  /** Line width in px (default 2; 0 draws no line, e.g. the edges of a band). */
  width?: number;
}

/** Save a chart as PNG (white background, as displayed). */
export function chartPng(chart: {
  toBase64Image: (type?: string, quality?: number) => string;
  canvas: HTMLCanvasElement;
}): string {
  const src = chart.canvas;
  const out = document.createElement('canvas');
  out.width = src.width;
  out.height = src.height;
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.drawImage(src, 0, 0);
  return out.toDataURL('image/png');
}

/** Several charts as one PNG, stacked top to bottom on white (Export PNG of a view with several charts). */
export function chartsPng(list: { canvas: HTMLCanvasElement }[]): string {
  const gap = 16;
  const width = Math.max(...list.map((c) => c.canvas.width));
  const height = list.reduce((h, c) => h + c.canvas.height, 0) + gap * (list.length - 1);
  const out = document.createElement('canvas');
  out.width = width;
  out.height = height;
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  let y = 0;
  for (const c of list) {
    ctx.drawImage(c.canvas, 0, y);
    y += c.canvas.height + gap;
  }
  return out.toDataURL('image/png');
}

/** Trigger a browser download (works in web mode; Electron shows its save dialog for downloads). */
export function download(filename: string, data: string | Blob, mime = 'text/plain'): void {
  const blob =
    typeof data === 'string' && data.startsWith('data:')
      ? dataUrlToBlob(data)
      : typeof data === 'string'
        ? new Blob([data], { type: mime })
        : data;
  const url = URL.createObjectURL(blob);
  saveLink(url, filename);
  setTimeout(() => URL.revokeObjectURL(url), 5000);
}

/**
 * Let the browser save what `href` points to as `filename` (a blob: URL made here, or a one-time download of the web
 * host).
 */
function saveLink(href: string, filename: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/**
 * Let the browser save a file the host offers as a one-time download (web mode's exports and saves:
 * lib/file-transfer.ts).
 */
export function fetchDownload(offer: DownloadOffer): void {
  saveLink(offer.url, offer.name);
}

function dataUrlToBlob(url: string): Blob {
  const [head, b64] = url.split(',', 2) as [string, string];
  const mime = /data:([^;]+)/.exec(head)?.[1] ?? 'application/octet-stream';
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Blob([bytes], { type: mime });
}
