/**
 * Issue 14 from the app: project.export { kind: 'apply' } over the web-mode
 * bridge (real host, store and worker pool). The loaded secrets text is
 * released into the chosen CSV; the released labels come back in order for
 * the page's chart; a seeded release is marked NOT FOR RELEASE; a secret
 * outside the domain is an error naming its line and leaves no file; a
 * remapped construction returns its remap record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type Client, type TestServer } from './web-fixture';

let t: TestServer;
let c: Client;
beforeAll(async () => {
  t = await startTestServer({ threads: 1 });
  c = await t.connect();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const mechanism = { domain: 'line:6', epsilon: 30, kind: 'rr' };

describe('apply from the app', () => {
  it('releases the loaded rows in order into the chosen file and returns the labels', async () => {
    const secrets = [0, 5, 2, 2, 4, 1, 3];
    const path = join(t.dir, 'released.csv');
    const r = await c.call('project.export', [{ kind: 'apply', request: { mechanism, seed: 3 }, secrets: 'value\n' + secrets.join('\n') + '\n', path }]);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const v = r.value as { files: string[]; apply: { result: { rows: number; forRelease: boolean; mode: string }; released: string[] } };
    expect(v.files).toEqual([path]);
    expect(v.apply.result).toMatchObject({ rows: secrets.length, forRelease: false, mode: 'labels' });
    // rr at eps 30 on 6 points releases the true value with probability 1 - 5/(e^30 + 5)
    expect(v.apply.released).toEqual(secrets.map(String));
    const text = readFileSync(path, 'utf8').split('\n');
    expect(text[0]).toMatch(/^# NOT FOR RELEASE/);
    expect(text.slice(1, 2 + secrets.length)).toEqual(['released', ...secrets.map(String)]);
  }, 60_000);

  it('a secret outside the domain is an error naming its line; no file is left', async () => {
    const path = join(t.dir, 'bad.csv');
    const r = await c.call('project.export', [{ kind: 'apply', request: { mechanism }, secrets: 'value\n1\n9\n', path }]);
    expect(r.ok).toBe(false);
    expect(r.error!.code).toBe('invalid-input');
    expect(r.error!.message).toMatch(/line 3/);
    expect(existsSync(path)).toBe(false);
  }, 60_000);

  it('a remapped construction returns its remap record', async () => {
    const path = join(t.dir, 'remapped.csv');
    const r = await c.call('project.export', [
      {
        kind: 'apply',
        request: { mechanism: { domain: 'grid:3x3', epsilon: 1, kind: 'planar-laplace', loss: 'dist', remap: true } },
        secrets: 'cell\n(1,1)\n(0,2)\n',
        path,
      },
    ]);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const v = r.value as { apply: { result: { rows: number; forRelease: boolean; remap?: { remappedLoss: number; originalLoss: number } } } };
    expect(v.apply.result.rows).toBe(2);
    expect(v.apply.result.forRelease).toBe(true);
    expect(v.apply.result.remap!.remappedLoss).toBeLessThanOrEqual(v.apply.result.remap!.originalLoss);
  }, 60_000);

  it('submit still refuses an apply request with paths from the page', async () => {
    const r = await c.call('submit', [{ type: 'apply', mechanism, input: '/etc/passwd', out: join(t.dir, 'x.csv') }]);
    expect(r.ok).toBe(false);
    expect(r.error!.message).toMatch(/"out" is not accepted/);
  });
});
