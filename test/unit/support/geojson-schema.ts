/**
 * GeoJSON (RFC 7946) as a zod schema, for the tests of the GeoJSON the app and CLI write (no GeoJSON schema package
 * is installed). The rules checked: a FeatureCollection of Features (§3.3, §3.2) with a geometry and a properties
 * member (object or null); positions are [longitude, latitude] of finite numbers in range (§3.1.1, §4); a Polygon's
 * rings are closed linear rings of at least four positions (§3.1.6), the exterior counter-clockwise and holes
 * clockwise (the right-hand rule, §3.1.6); no `crs` member (§4: removed from the format).
 */
import { z } from 'zod';

const position = z
  .array(z.number())
  .min(2)
  .max(3)
  .refine((p) => p[0]! >= -180 && p[0]! <= 180, 'longitude (position[0]) out of [-180, 180]')
  .refine((p) => p[1]! >= -90 && p[1]! <= 90, 'latitude (position[1]) out of [-90, 90]');

/** Twice the signed area of a ring in the lon/lat plane (positive: counter-clockwise). */
export function signedArea2(ring: number[][]): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0]! * ring[i + 1]![1]! - ring[i + 1]![0]! * ring[i]![1]!;
  return a;
}

const linearRing = z
  .array(position)
  .min(4, 'a linear ring has at least four positions')
  .refine(
    (r) => r[0]!.length === r.at(-1)!.length && r[0]!.every((v, i) => v === r.at(-1)![i]),
    'a linear ring is closed (first position = last)',
  );

const polygon = z.strictObject({
  type: z.literal('Polygon'),
  coordinates: z
    .array(linearRing)
    .min(1)
    .refine((rings) => signedArea2(rings[0]!) > 0, 'the exterior ring is counter-clockwise')
    .refine((rings) => rings.slice(1).every((h) => signedArea2(h) < 0), 'holes are clockwise'),
  bbox: z.array(z.number()).optional(),
});
const point = z.strictObject({ type: z.literal('Point'), coordinates: position, bbox: z.array(z.number()).optional() });

export const featureSchema = z
  .object({
    type: z.literal('Feature'),
    geometry: z.union([point, polygon, z.null()]),
    properties: z.record(z.string(), z.unknown()).nullable(),
    id: z.union([z.string(), z.number()]).optional(),
  })
  .refine((f) => !('crs' in f), 'no crs member (RFC 7946 §4)');

export const featureCollectionSchema = z
  .object({
    type: z.literal('FeatureCollection'),
    features: z.array(featureSchema),
    bbox: z.array(z.number()).optional(),
  })
  .refine((f) => !('crs' in f), 'no crs member (RFC 7946 §4)');
