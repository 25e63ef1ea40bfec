/**
 * The colour legend of the maps (MapView.svelte, and MapLegend.svelte when
 * several maps share one scale): the square-root colour scale from 0 (bottom)
 * to vmax (top) with its values at legendTicks, drawn on a canvas.
 */
import { heatColor } from './charts';
import { fmt } from './format';
import { legendTicks } from './map-geo';

/** Draw the legend bar at (x, top), `height` px tall, its title `valueName` above it. */
export function drawMapLegend(
  ctx: CanvasRenderingContext2D,
  x: number,
  top: number,
  height: number,
  vmax: number,
  valueName: string,
): void {
  for (let py = 0; py < height; py++) {
    ctx.fillStyle = heatColor(1 - py / height);
    ctx.fillRect(x, top + py, 12, 1);
  }
  ctx.strokeStyle = '#9aa5b1';
  ctx.strokeRect(x + 0.5, top + 0.5, 12, height);
  ctx.fillStyle = '#52606d';
  ctx.textAlign = 'left';
  for (const t of legendTicks(vmax)) {
    const py = top + height - Math.sqrt(vmax > 0 ? t / vmax : 0) * height;
    ctx.fillRect(x + 12, py, 4, 1);
    ctx.fillText(fmt(t, 2), x + 18, py + 4);
  }
  ctx.fillText(valueName, x - 4, top - 6);
}

/** The legend's values as a data attribute (tests read it). */
export function legendText(vmax: number): string {
  return legendTicks(vmax)
    .map((t) => fmt(t, 2))
    .join(' ');
}
