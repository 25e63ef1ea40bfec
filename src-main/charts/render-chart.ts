/**
 * Case-study charts (protocol ChartSpec) rendered to PNG in Node: Chart.js
 * drawing on an @napi-rs/canvas canvas (no DOM; Chart.js picks its basic
 * platform), animation off and a fixed size so the picture is deterministic.
 */
import { createRequire } from 'node:module';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  SubTitle,
  Title,
} from 'chart.js';
import type { ChartSpec } from '../../src-shared/protocol/index';
import { chartConfig, chartHeight } from '../../src-shared/charts/chart-config';

// The native canvas is loaded on the first chart, not with the CLI (about 50 ms of every command's start).
const requireNative = createRequire(import.meta.url);
let canvasModule: typeof import('@napi-rs/canvas') | null = null;

Chart.register(
  LineController,
  LineElement,
  PointElement,
  BarController,
  BarElement,
  LinearScale,
  LogarithmicScale,
  CategoryScale,
  Legend,
  Title,
  SubTitle,
);

/** Render one chart to PNG bytes (white background). */
export function renderChartPng(spec: ChartSpec, width = 1000, baseHeight = 600): Buffer {
  canvasModule ??= requireNative('@napi-rs/canvas') as typeof import('@napi-rs/canvas');
  // horizontal bar charts grow with their categories
  const height = chartHeight(spec, baseHeight);
  const canvas = canvasModule.createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  Chart.defaults.font.family = 'DejaVu Sans, Arial, sans-serif';
  Chart.defaults.color = '#222222';
  // Chart.js only needs a canvas-like object with getContext('2d'), width and height
  const chart = new Chart(canvas as unknown as ConstructorParameters<typeof Chart>[0], chartConfig(spec));
  try {
    return canvas.toBuffer('image/png');
  } finally {
    chart.destroy();
  }
}
