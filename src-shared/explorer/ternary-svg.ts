/**
 * Ternary-plot drawing for the explorer's simplex view (SPEC §6): plot
 * coordinates (secret 0 at (0, 0), secret 1 at (1, 0), secret 2 at
 * (1/2, sqrt(3)/2), y up) to SVG coordinates (y down). The engine builds the
 * view in plot coordinates (src-worker/explorer/ternary.ts); the renderer
 * draws it with these.
 */
import type { Point2 } from '../protocol/index';

/** Height of the reference triangle, sqrt(3)/2. */
export const TERNARY_HEIGHT = Math.sqrt(3) / 2;

/** SVG path "M x y L ... Z" for a polygon in plot coordinates, scaled and y-flipped into a box. */
export function svgPath(poly: readonly Point2[], scale: number, pad: number): string {
  if (poly.length === 0) return '';
  return (
    poly
      .map((p, i) => {
        const s = toSvg(p, scale, pad);
        return `${i === 0 ? 'M' : 'L'}${s.x.toFixed(2)} ${s.y.toFixed(2)}`;
      })
      .join(' ') + ' Z'
  );
}

/** Plot coordinates to SVG coordinates (y down) in a box of width scale + 2 pad. */
export function toSvg(p: Point2, scale: number, pad: number): Point2 {
  return { x: pad + p.x * scale, y: pad + (TERNARY_HEIGHT - p.y) * scale };
}

/** SVG box height for a given scale and padding. */
export function svgHeight(scale: number, pad: number): number {
  return TERNARY_HEIGHT * scale + 2 * pad;
}
