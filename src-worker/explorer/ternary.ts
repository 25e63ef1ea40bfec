/**
 * Ternary-plot geometry for the privacy-type explorer's simplex view (SPEC §6,
 * n = 3), built in the engine by the explorer job; the view's types are
 * the protocol's (src-shared/protocol/explorer.ts) and its drawing helpers are
 * in src-shared/explorer/ternary-svg.ts. Coordinates: secret 0 at (0, 0),
 * secret 1 at (1, 0), secret 2 at (1/2, sqrt(3)/2) (y up; SVG callers flip y).
 */

import { MechError } from '../../src-shared/errors';
import type { Bary, Point2, TernaryPoint, TernaryPosterior, TernaryView } from '../../src-shared/protocol/index';
import { TERNARY_HEIGHT } from '../../src-shared/explorer/ternary-svg';

export type { TernaryView } from '../../src-shared/protocol/index';

const H = TERNARY_HEIGHT;
const TERNARY_CORNERS: readonly Point2[] = [
  { x: 0, y: 0 },
  { x: 1, y: 0 },
  { x: 0.5, y: H },
];
/** Area of the reference triangle (sqrt(3)/4). */
export const TERNARY_AREA = H / 2;

function assertBary(b: readonly number[], what: string): void {
  if (b.length !== 3)
    throw new MechError('invalid-input', `${what}: a ternary point needs 3 coordinates, got ${b.length}`);
  for (const v of b)
    if (!Number.isFinite(v)) throw new MechError('invalid-input', `${what}: coordinate ${String(v)} is not finite`);
}

/** Barycentric (p0, p1, p2), normalised by its sum, to plot coordinates. */
export function toTernaryXY(b: readonly number[]): Point2 {
  assertBary(b, 'toTernaryXY');
  const s = b[0]! + b[1]! + b[2]!;
  if (!(s > 0)) throw new MechError('invalid-input', `toTernaryXY: coordinates sum to ${s}, need > 0`);
  const p1 = b[1]! / s;
  const p2 = b[2]! / s;
  return { x: p1 + p2 / 2, y: p2 * H };
}

/** Inverse of toTernaryXY. */
export function fromTernaryXY(p: Point2): Bary {
  const p2 = p.y / H;
  const p1 = p.x - p2 / 2;
  return [1 - p1 - p2, p1, p2];
}

function ternaryPoint(b: readonly number[]): TernaryPoint {
  const s = b[0]! + b[1]! + b[2]!;
  return { bary: [b[0]! / s, b[1]! / s, b[2]! / s], xy: toTernaryXY(b) };
}

/** Signed area (shoelace), positive for counter-clockwise order. */
export function polygonArea(poly: readonly Point2[]): number {
  let a = 0;
  for (let i = 0; i < poly.length; i++) {
    const p = poly[i]!;
    const q = poly[(i + 1) % poly.length]!;
    a += p.x * q.y - q.x * p.y;
  }
  return a / 2;
}

/** Convex hull (Andrew's monotone chain), counter-clockwise, collinear and duplicate points dropped. */
export function convexHull(points: readonly Point2[], tol = 1e-12): Point2[] {
  const pts = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  if (pts.length <= 1) return pts;
  const cross = (o: Point2, a: Point2, b: Point2) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const lower: Point2[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= tol) lower.pop();
    lower.push(p);
  }
  const upper: Point2[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= tol) upper.pop();
    upper.push(p);
  }
  lower.pop();
  upper.pop();
  const hull = lower.concat(upper);
  // All points coincident: the two chains collapse to one point.
  if (hull.length === 2 && Math.hypot(hull[0]!.x - hull[1]!.x, hull[0]!.y - hull[1]!.y) <= tol) return [hull[0]!];
  return hull;
}

/** p inside or on the convex polygon (counter-clockwise), within tol. */
export function insideConvexPolygon(p: Point2, poly: readonly Point2[], tol = 1e-12): boolean {
  if (poly.length === 0) return false;
  if (poly.length === 1) return Math.hypot(p.x - poly[0]!.x, p.y - poly[0]!.y) <= tol;
  for (let i = 0; i < poly.length; i++) {
    const a = poly[i]!;
    const b = poly[(i + 1) % poly.length]!;
    const c = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
    if (c < -tol) return false;
    if (poly.length === 2) {
      // Segment: also require p between a and b.
      const t = ((p.x - a.x) * (b.x - a.x) + (p.y - a.y) * (b.y - a.y)) / ((b.x - a.x) ** 2 + (b.y - a.y) ** 2);
      return Math.abs(c) <= tol && t >= -tol && t <= 1 + tol;
    }
  }
  return true;
}

/** Corner priors (SPEC §5): row y of Phi normalised to sum 1. */
export function cornerPriors(phi: readonly (readonly number[])[]): Bary[] {
  return phi.map((row, y) => {
    assertBary(row, `Phi row ${y}`);
    const s = row[0]! + row[1]! + row[2]!;
    return [row[0]! / s, row[1]! / s, row[2]! / s];
  });
}

/**
 * Posteriors of a channel (3 x m rows) under a prior (SPEC §3 hyper-distribution,
 * unmerged): p(y) = sum_x pi_x C[x][y], posterior pi_x C[x][y] / p(y); outputs
 * with p(y) = 0 are skipped.
 */
export function posteriorsUnderPrior(
  channel: readonly (readonly number[])[],
  prior: readonly number[],
  colLabels?: readonly string[],
): TernaryPosterior[] {
  if (channel.length !== 3)
    throw new MechError(
      'invalid-input',
      `posteriorsUnderPrior: the simplex view needs 3 secrets, the channel has ${channel.length} rows`,
    );
  assertBary(prior, 'prior');
  const m = channel[0]!.length;
  const out: TernaryPosterior[] = [];
  for (let y = 0; y < m; y++) {
    const j: Bary = [prior[0]! * channel[0]![y]!, prior[1]! * channel[1]![y]!, prior[2]! * channel[2]![y]!];
    const p = j[0] + j[1] + j[2];
    if (!(p > 0)) continue;
    out.push({ ...ternaryPoint(j), outer: p, label: colLabels?.[y] ?? String(y) });
  }
  return out;
}

/** Order the vertices of a convex polygon counter-clockwise (via the hull). */
function convexPolygon(points: readonly TernaryPoint[]): TernaryPoint[] {
  const hull = convexHull(points.map((p) => p.xy));
  return hull.map((h) => points.find((p) => p.xy === h)!);
}

interface TernaryViewInput {
  labels: readonly string[];
  eps: number;
  /** Private-posterior vertices (any order). */
  vertices: readonly (readonly number[])[];
  /** Phi[x][x'] = exp(-eps d(x, x')). */
  phi: readonly (readonly number[])[];
  mechanisms?: { name: string; channel: readonly (readonly number[])[]; colLabels?: readonly string[] }[];
  /** Prior for the mechanisms' posteriors (uniform by default). */
  prior?: readonly number[];
}

export function buildTernaryView(input: TernaryViewInput): TernaryView {
  if (input.labels.length !== 3)
    throw new MechError('invalid-input', `the simplex view needs exactly 3 secrets, got ${input.labels.length}`);
  const privateRegion = convexPolygon(input.vertices.map((v) => ternaryPoint(v)));
  const cp = cornerPriors(input.phi).map((b) => ternaryPoint(b));
  const regularRegion = convexHull(cp.map((c) => c.xy));
  const u = ternaryPoint([1, 1, 1]);
  const prior = input.prior ?? [1 / 3, 1 / 3, 1 / 3];
  return {
    labels: [input.labels[0]!, input.labels[1]!, input.labels[2]!],
    eps: input.eps,
    corners: TERNARY_CORNERS.map((c) => ({ ...c })),
    privateRegion,
    privateArea: Math.abs(polygonArea(privateRegion.map((p) => p.xy))) / TERNARY_AREA,
    cornerPriors: cp,
    regularRegion,
    regularArea: Math.abs(polygonArea(regularRegion)) / TERNARY_AREA,
    uniform: { ...u, regular: insideConvexPolygon(u.xy, regularRegion, 1e-12) },
    mechanisms: (input.mechanisms ?? []).map((m) => ({
      name: m.name,
      posteriors: posteriorsUnderPrior(m.channel, prior, m.colLabels),
    })),
  };
}
