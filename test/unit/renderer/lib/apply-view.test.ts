/**
 * The Apply view's pure parts: every mechanism has a source to apply with
 * (an optimal LP its kept channel, never its construction, so the request
 * passes the apply schema), the points binning comes from a prior of the
 * grid imported from points, and secrets are binned onto the cells the
 * release uses.
 */
import { describe, expect, it } from 'vitest';
import { applySource } from '../../../../src-renderer/lib/project-model';
import type { ProjectMechanismIn } from '../../../../src-shared/project/item-requests';
import {
  cellCounts,
  cellOfLabel,
  HEADER_CHOICES,
  pointsImportFor,
  secretCells,
  secretLabels,
} from '../../../../src-renderer/lib/apply-view';
import { applyRequestSchema } from '../../../../src-shared/protocol/requests';
import { projectSchema, type ProjectInput } from '../../../../src-shared/protocol/project';
import { localProjection } from '../../../../src-shared/data/points-grid';

const binning = {
  rows: 3,
  cols: 3,
  cellKm: 0.5,
  xMin: -0.75,
  yMax: 0.75,
  projection: { lat0: 48.85, lon0: 2.35, latMin: 48.84, latMax: 48.86 },
};
const points = { file: 'homes.csv', binning, box: null, smoothing: 0.5, inside: 20, outside: 0 };
const lp: ProjectMechanismIn = { id: 'lp', domain: 'town', kind: 'optimal', epsilon: 1, prior: 'homes', loss: 'dist' };
const pl: ProjectMechanismIn = { id: 'pl', domain: 'town', kind: 'planar-laplace', epsilon: 1, prior: 'flat' };
const project: ProjectInput = {
  version: 2,
  name: 'p',
  domains: [{ id: 'town', domain: 'grid:3x3:step=0.5' }],
  priors: [
    { id: 'flat', domain: 'town', prior: 'uniform' },
    { id: 'homes', domain: 'town', prior: { kind: 'vector', values: Array(9).fill(1 / 9) }, points },
  ],
  mechanisms: [lp, pl],
};

describe('apply sources', () => {
  it('the project with a points import is a valid project', () => {
    expect(projectSchema.safeParse(project).success).toBe(true);
  });

  it('an optimal mechanism applies with its kept channel and the secrets domain, a construction with its spec; both pass the apply schema', () => {
    const ref = 'ch-0123456789abcdef0123456789abcdef';
    const a = applySource(project, lp, ref);
    // the kept channel is released under the mechanism's eps: the host refuses it unless it is private there
    expect(a).toEqual({ channelRef: ref, domain: 'grid:3x3:step=0.5', epsilon: 1 });
    expect(applyRequestSchema.safeParse({ type: 'apply', ...a, input: 'in.csv', out: 'out.csv' }).success).toBe(true);
    const b = applySource(project, pl, undefined);
    expect('mechanism' in b && b.mechanism).toMatchObject({ kind: 'planar-laplace', domain: 'grid:3x3:step=0.5' });
    // the construction carries no keepChannel (the mechanism spec refuses it)
    expect(applyRequestSchema.safeParse({ type: 'apply', ...b, input: 'in.csv', out: 'out.csv' }).success).toBe(true);
    expect(() => applySource(project, lp, undefined)).toThrow("compute mechanism 'lp' first");
  });

  it('the points binning is the mechanism prior import, or another prior of its grid imported from points', () => {
    expect(pointsImportFor(project, lp, { rows: 3, cols: 3 })).toEqual({ prior: 'homes', points });
    expect(pointsImportFor(project, pl, { rows: 3, cols: 3 })).toEqual({ prior: 'homes', points });
    expect(pointsImportFor(project, pl, { rows: 4, cols: 3 })).toBeNull();
    expect(pointsImportFor(project, pl, null)).toBeNull();
  });
});

describe('true and released cells', () => {
  it('lat,lon secrets fall in the cells of the binning; labels are read as cells', () => {
    const proj = localProjection(48.85, 2.35, 48.84, 48.86);
    const [a, b] = proj.unproject(-0.75 + 0.1, 0.75 - 0.1); // cell (0,0)
    const [c, d] = proj.unproject(0.7, -0.7); // cell (2,2)
    const text = `id,lat,lon\n1,${a},${b}\n2,${c},${d}\n3,48.95,2.35\n`;
    expect(secretCells(text, 10, 3, 3, binning)).toEqual({ cells: [0, 8, -1], mode: 'points' });
    expect(secretCells(text, 1, 3, 3, binning).cells).toEqual([0]);
    expect(secretCells('cell\n(1,2)\n(0,0)\n(9,9)\n', 10, 3, 3, null)).toEqual({ cells: [5, 0, -1], mode: 'labels' });
    expect(cellOfLabel(' ( 2 , 1 ) ', 3, 3)).toBe(7);
    expect(cellCounts([0, 8, -1, 8], 9)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 2]);
  });
});

describe('the header choice (as apply --header yes|no)', () => {
  it('offers by content, yes and no; yes and no pass the apply schema as header', () => {
    expect(HEADER_CHOICES.map((h) => h.value)).toEqual(['auto', 'yes', 'no']);
    for (const header of ['yes', 'no'] as const)
      expect(
        applyRequestSchema.safeParse({
          type: 'apply',
          mechanism: { domain: 'line:3', epsilon: 1, kind: 'tg' },
          header,
          input: 'i.csv',
          out: 'o.csv',
        }).success,
      ).toBe(true);
  });

  it('the preview reads line 1 as the release did: a header skipped, else the first secret', () => {
    const text = '(0,1)\n(1,2)\n(2,2)\n';
    expect(secretLabels(text, 10, false)).toEqual(['(0,1)', '(1,2)', '(2,2)']);
    expect(secretLabels(`cell\n${text}`, 10, true)).toEqual(['(0,1)', '(1,2)', '(2,2)']);
    expect(secretCells(text, 10, 3, 3, null, false).cells).toEqual([1, 5, 8]);
    expect(secretCells(`cell\n${text}`, 2, 3, 3, null, true).cells).toEqual([1, 5]);
    // headerless points: two columns in the grid's units (km), binned without the lat,lon projection
    expect(secretCells('-0.6,0.6\n0.7,-0.7\n', 10, 3, 3, binning, false)).toEqual({ cells: [0, 8], mode: 'points' });
  });
});
