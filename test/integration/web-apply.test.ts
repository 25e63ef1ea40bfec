/**
 * Apply from the app: project.export { kind: 'apply' } over the web-mode
 * bridge (real host, store and worker pool). The loaded secrets text is
 * released into the chosen CSV; the released labels come back in order for
 * the page's chart; a seeded release is marked NOT FOR RELEASE; a secret
 * outside the domain is an error naming its line and leaves no file; a
 * remapped construction returns its remap record; an optimal mechanism is
 * applied from its kept channel; lat/lon secrets are binned like the prior.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestServer } from './web-fixture';
import { localProjection } from '../../src-shared/data/points-grid';

const web = useTestServer();

const mechanism = { domain: 'line:6', epsilon: 30, kind: 'rr' };

describe('apply from the app', () => {
  it('releases the loaded rows in order into the chosen file and returns the labels', async () => {
    const secrets = [0, 5, 2, 2, 4, 1, 3];
    const path = join(web.t.dir, 'released.csv');
    const r = await web.c.call('project.export', [
      { kind: 'apply', request: { mechanism, seed: 3 }, secrets: 'value\n' + secrets.join('\n') + '\n', path },
    ]);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const v = r.value as {
      files: string[];
      apply: { result: { rows: number; forRelease: boolean; mode: string }; released: string[] };
    };
    expect(v.files).toEqual([path]);
    expect(v.apply.result).toMatchObject({ rows: secrets.length, forRelease: false, mode: 'labels' });
    // rr at eps 30 on 6 points releases the true value with probability 1 - 5/(e^30 + 5)
    expect(v.apply.released).toEqual(secrets.map(String));
    const text = readFileSync(path, 'utf8').split('\n');
    expect(text[0]).toMatch(/^# NOT FOR RELEASE/);
    expect(text.slice(1, 2 + secrets.length)).toEqual(['released', ...secrets.map(String)]);
  }, 60_000);

  it('a secret outside the domain is an error naming its line; no file is left', async () => {
    const path = join(web.t.dir, 'bad.csv');
    const r = await web.c.call('project.export', [
      { kind: 'apply', request: { mechanism }, secrets: 'value\n1\n9\n', path },
    ]);
    expect(r.ok).toBe(false);
    expect(r.error!.code).toBe('invalid-input');
    expect(r.error!.message).toMatch(/line 3/);
    expect(existsSync(path)).toBe(false);
  }, 60_000);

  it('a remapped construction returns its remap record', async () => {
    const path = join(web.t.dir, 'remapped.csv');
    const r = await web.c.call('project.export', [
      {
        kind: 'apply',
        request: { mechanism: { domain: 'grid:3x3', epsilon: 1, kind: 'planar-laplace', loss: 'dist', remap: true } },
        secrets: 'cell\n(1,1)\n(0,2)\n',
        path,
      },
    ]);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const v = r.value as {
      apply: { result: { rows: number; forRelease: boolean; remap?: { remappedLoss: number; originalLoss: number } } };
    };
    expect(v.apply.result.rows).toBe(2);
    expect(v.apply.result.forRelease).toBe(true);
    expect(v.apply.result.remap!.remappedLoss).toBeLessThanOrEqual(v.apply.result.remap!.originalLoss);
  }, 60_000);

  it('an optimal mechanism is applied from the channel the host kept (channelRef), never solved again', async () => {
    const lp = await web.c.call('submit', [
      {
        type: 'mechanism',
        domain: 'grid:3x3',
        epsilon: 30,
        kind: 'optimal',
        loss: 'dist',
        keepChannel: true,
        inlineLimit: 0,
      },
    ]);
    const end = await web.c.jobEnd(lp.value as string);
    if (end.kind !== 'result' || end.result.type !== 'mechanism') throw new Error(JSON.stringify(end));
    const channelRef = end.result.channelRef!;
    const started: string[] = [];
    const off = web.t.dispatcher.onJobEvent((e) => void (e.kind === 'queued' && started.push(e.type)));
    const secrets = ['(0,0)', '(2,1)', '(1,2)', '(2,2)'];
    const path = join(web.t.dir, 'lp-released.csv');
    const r = await web.c.call('project.export', [
      { kind: 'apply', request: { channelRef, domain: 'grid:3x3' }, secrets: `cell\n${secrets.join('\n')}\n`, path },
    ]);
    off();
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const v = r.value as {
      apply: { result: { rows: number; outputs: number; forRelease: boolean }; released: string[] };
    };
    expect(v.apply.result).toMatchObject({ rows: 4, outputs: 9, forRelease: true });
    // at eps 30 per unit the optimal channel keeps each cell with probability 1 - O(8 e^-30)
    expect(v.apply.released).toEqual(secrets);
    expect(started).toEqual(['apply']);
    // a channelRef without the secrets' domain is refused in one line
    const bad = await web.c.call('project.export', [
      { kind: 'apply', request: { channelRef }, secrets: 'cell\n(0,0)\n', path },
    ]);
    expect(bad.error?.message).toMatch(/apply with a channelRef needs the domain of its secrets/);
  }, 60_000);

  it('lat/lon secrets are released on the cells of the points grid the prior was imported with', async () => {
    // a 3 x 3 grid of 0.5 km cells centred on (48.85, 2.35), as the app's points import records it
    const projection = { lat0: 48.85, lon0: 2.35, latMin: 48.84, latMax: 48.86 };
    const points = { rows: 3, cols: 3, cellKm: 0.5, xMin: -0.75, yMax: 0.75, projection };
    const proj = localProjection(projection.lat0, projection.lon0, projection.latMin, projection.latMax);
    // secrets a little off the centres of cells (0,0), (2,1), (1,2)
    const cells: [number, number][] = [
      [0, 0],
      [2, 1],
      [1, 2],
    ];
    const latlon = cells.map(([r, col]) => proj.unproject(-0.75 + (col + 0.4) * 0.5, 0.75 - (r + 0.6) * 0.5));
    const path = join(web.t.dir, 'latlon-released.csv');
    const r = await web.c.call('project.export', [
      {
        kind: 'apply',
        request: { mechanism: { domain: 'grid:3x3:step=0.5', epsilon: 60, kind: 'rr' }, points, seed: 1 },
        secrets: `lat,lon\n${latlon.map(([a, b]) => `${a},${b}`).join('\n')}\n`,
        path,
      },
    ]);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const v = r.value as { apply: { result: { mode: string; rows: number }; released: string[] } };
    expect(v.apply.result).toMatchObject({ mode: 'points', rows: 3 });
    expect(v.apply.released).toEqual(cells.map(([a, b]) => `(${a},${b})`));
    // the released file gives each released cell's centre in lat,lon
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines[1]).toBe('released,lat,lon');
    const [lat, lon] = lines[2]!.split(',').slice(-2).map(Number);
    const [cLat, cLon] = proj.unproject(-0.75 + 0.25, 0.75 - 0.25);
    expect(lat).toBeCloseTo(cLat, 12);
    expect(lon).toBeCloseTo(cLon, 12);
  }, 60_000);

  it('submit still refuses an apply request with paths from the page', async () => {
    const r = await web.c.call('submit', [
      { type: 'apply', mechanism, input: '/etc/passwd', out: join(web.t.dir, 'x.csv') },
    ]);
    expect(r.ok).toBe(false);
    expect(r.error!.message).toMatch(/"out" is not accepted/);
  });
});
