/**
 * GeoJSON of a lat,lon points grid: every cell a closed counter-clockwise [lon, lat] rectangle, valid against RFC 7946.
 */
import { describe, expect, it } from 'vitest';
import {
  cellsGeoJson,
  cellRing,
  gridProjection,
  position,
  releasedPointFeature,
} from '../../../../src-shared/data/geojson';
import type { PointsBinning } from '../../../../src-shared/protocol/index';
import { featureCollectionSchema, featureSchema, signedArea2 } from '../../support/geojson-schema';
import { localProjection } from '../../../../src-shared/data/points-grid';

// a 2 x 3 grid of 0.5 km cells around Paris
const binning: PointsBinning = {
  rows: 2,
  cols: 3,
  cellKm: 0.5,
  xMin: -0.75,
  yMax: 0.5,
  projection: { lat0: 48.86, lon0: 2.35, latMin: 48.85, latMax: 48.87 },
};

describe('GeoJSON of a points grid', () => {
  it('writes one valid Polygon per cell with its value, rings closed and counter-clockwise in [lon, lat]', () => {
    const text = cellsGeoJson(binning, [1, 2, 3, 4, null, 6], 'expected loss (km)', 'map');
    const fc = featureCollectionSchema.parse(JSON.parse(text));
    expect(fc.features).toHaveLength(6);
    expect(fc.features.map((f) => f.properties!.value)).toEqual([1, 2, 3, 4, null, 6]);
    const ring = (fc.features[0]!.geometry as { coordinates: number[][][] }).coordinates[0]!;
    expect(ring).toHaveLength(5);
    expect(signedArea2(ring)).toBeGreaterThan(0);
    // cell 0 is the north-west one: its south-west corner is at x = -0.75 km, y = 0 km
    const p = localProjection(48.86, 2.35, 48.85, 48.87);
    const [lat, lon] = p.unproject(-0.75, 0);
    expect(ring[0]).toEqual(position(lat, lon));
    expect(ring[0]![0]).toBeCloseTo(2.35 - 0.75 / (6371.0088 * (Math.PI / 180) * Math.cos(48.86 * (Math.PI / 180))), 7);
    expect(ring[2]![1]).toBeCloseTo(48.86 + 0.5 / (6371.0088 * (Math.PI / 180)), 7);
  });

  it('neighbouring cells share their edge', () => {
    const proj = gridProjection(binning, 'map');
    const a = cellRing(binning, proj, 0);
    const b = cellRing(binning, proj, 1);
    expect(b[0]).toEqual(a[1]); // the east cell's south-west corner is the west cell's south-east one
    expect(b[3]).toEqual(a[2]);
  });

  it('a released point is a Point [lon, lat]', () => {
    const f = featureSchema.parse(JSON.parse(releasedPointFeature('0,1', 48.86, 2.35, 1)));
    expect(f.geometry).toEqual({ type: 'Point', coordinates: [2.35, 48.86] });
    expect(f.properties).toEqual({ row: 1, released: '0,1' });
  });

  it('the schema refuses what RFC 7946 refuses: a clockwise ring, an open ring, [lat, lon] out of range', () => {
    const poly = (ring: number[][]): unknown => ({
      type: 'Feature',
      properties: {},
      geometry: { type: 'Polygon', coordinates: [ring] },
    });
    const ccw = [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 1],
      [0, 0],
    ];
    expect(featureSchema.safeParse(poly(ccw)).success).toBe(true);
    expect(featureSchema.safeParse(poly([...ccw].reverse())).success).toBe(false);
    expect(featureSchema.safeParse(poly(ccw.slice(0, 4))).success).toBe(false);
    expect(
      featureSchema.safeParse({
        type: 'Feature',
        properties: null,
        geometry: { type: 'Point', coordinates: [10, 120] },
      }).success,
    ).toBe(false);
  });

  it('refuses a grid in x,y km and a wrong number of values with one line', () => {
    expect(() => cellsGeoJson({ ...binning, projection: null }, [1, 2, 3, 4, 5, 6], 'v', 'map')).toThrow(
      'map: GeoJSON needs a points grid built from lat,lon (this grid is in x,y km)',
    );
    expect(() => cellsGeoJson(binning, [1], 'v', 'map')).toThrow('map: 1 values for a grid of 6 cells');
  });
});
