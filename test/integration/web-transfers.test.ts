/**
 * Web mode's downloads and uploads over the real host and web server: an
 * export or a save given no path is written privately and offered once at
 * /download/TOKEN (a second fetch gets 404); a project goes up into a slot
 * (/upload/TOKEN, this page's Origin only) and opens with its references
 * read in the workspace; no reply names a file of the server's temp folder,
 * errors name the user's file as the user picked it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Client, type TestServer } from './web-fixture';
import type { DownloadOffer, UploadSlot } from '../../src-shared/protocol/api';

let t: TestServer;
let c: Client;
let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mechstudio-root-'));
  t = await startTestServer({ threads: 1, transfers: true, root });
  c = await t.connect();
}, 60_000);
afterAll(async () => {
  await t?.close();
  rmSync(root, { recursive: true, force: true });
});

const base = (): string => `http://127.0.0.1:${t.server.port}`;
/** No reply or message may carry the server's temp folder. */
const noTemp = (text: string): void => {
  expect(text).not.toContain(tmpdir());
  expect(text).not.toMatch(/mechstudio-(web|apply)-/);
};

async function upload(
  name: string,
  body: string,
  origin = t.origin,
): Promise<{ slot: UploadSlot; status: number; text: string }> {
  const r = await c.call('transfer.slot', [name, Buffer.byteLength(body)]);
  expect(r.ok, JSON.stringify(r.error)).toBe(true);
  const slot = r.value as UploadSlot;
  const res = await fetch(base() + slot.url, { method: 'POST', body, headers: { origin } });
  return { slot, status: res.status, text: await res.text() };
}

describe('downloads', () => {
  it('a channel CSV export without a path is a one-time download with the suggested name', async () => {
    const r = await c.call('project.export', [
      {
        kind: 'channel-csv',
        request: { type: 'mechanism', domain: 'line:3', epsilon: 1, kind: 'rr' },
        name: 'rr-channel.csv',
      },
    ]);
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    noTemp(JSON.stringify(r));
    const v = r.value as { files: string[]; download: DownloadOffer };
    expect(v.files).toEqual([]);
    expect(v.download.name).toBe('rr-channel.csv');
    expect(v.download.url).toMatch(/^\/download\/[A-Za-z0-9_-]{32}$/);
    const res = await fetch(base() + v.download.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('filename="rr-channel.csv"');
    const lines = (await res.text()).trimEnd().split('\n');
    // randomised response on 3 points at eps 1: e/(e+2) on the diagonal, 1/(e+2) elsewhere
    expect(lines).toHaveLength(4);
    const row = lines[1]!.split(',').slice(1).map(Number);
    expect(row[0]).toBeCloseTo(Math.E / (Math.E + 2), 12);
    expect(row[1]).toBeCloseTo(1 / (Math.E + 2), 12);
    expect(v.download.bytes).toBe(Buffer.byteLength(lines.join('\n') + '\n'));
    expect((await fetch(base() + v.download.url)).status).toBe(404);
  }, 60_000);

  it("apply's released CSV is a download; a bad secret is named in the user's file, never the temp copy", async () => {
    const mechanism = { domain: 'line:6', epsilon: 30, kind: 'rr' };
    const ok = await c.call('project.export', [
      {
        kind: 'apply',
        request: { mechanism, seed: 3 },
        secrets: 'value\n0\n5\n',
        secretsName: 'homes.csv',
        name: 'm-released.csv',
      },
    ]);
    expect(ok.ok, JSON.stringify(ok.error)).toBe(true);
    noTemp(JSON.stringify(ok));
    const v = ok.value as {
      download: DownloadOffer;
      apply: { result: { csvPath: string; rows: number }; released: string[] };
    };
    expect(v.apply.result).toMatchObject({ csvPath: 'm-released.csv', rows: 2 });
    expect(v.apply.released).toEqual(['0', '5']);
    expect((await (await fetch(base() + v.download.url)).text()).split('\n').slice(1, 4)).toEqual([
      'released',
      '0',
      '5',
    ]);
    const bad = await c.call('project.export', [
      { kind: 'apply', request: { mechanism }, secrets: 'value\n1\n9\n', secretsName: 'homes.csv' },
    ]);
    expect(bad.ok).toBe(false);
    expect(bad.error!.message).toMatch(/homes\.csv/);
    expect(bad.error!.message).toMatch(/line 3/);
    noTemp(bad.error!.message);
  }, 60_000);
});

describe('a project saved as a download and opened by upload', () => {
  it('comes back the same', async () => {
    const ex = await c.call('examples.load', ['city']);
    expect(ex.ok).toBe(true);
    const project = (ex.value as { project: { name: string } }).project;
    const saved = await c.call('project.save', [project]);
    expect(saved.ok, JSON.stringify(saved.error)).toBe(true);
    // the download, and a copy kept in the server's workspace (a reload returns to it)
    const s = saved.value as { path: string; download: DownloadOffer };
    expect(s.path).toMatch(/\/mechstudio-projects\/[^/]+\.mechstudio\.json$/);
    expect(s.download.name).toBe(`${project.name.replace(/[^\w.-]+/g, '-')}.mechstudio.json`);
    const text = await (await fetch(base() + s.download.url)).text();
    expect(JSON.parse(text)).toEqual(project);
    const up = await upload('my copy.mechstudio.json', text);
    expect(up.status).toBe(204);
    const opened = await c.call('project.openUpload', [up.slot.token]);
    expect(opened.ok, JSON.stringify(opened.error)).toBe(true);
    const got = opened.value as { path: string; project: unknown };
    expect(got.project).toEqual(project);
    expect(got.path).toMatch(/\/mechstudio-projects\/[^/]+\.json$/);
    // a slot is used once
    expect((await c.call('project.openUpload', [up.slot.token])).error!.message).toMatch(/pick the file again/);
  }, 60_000);

  it("a broken upload is named by the user's file name; a reference is read in the workspace", async () => {
    const up = await upload('broken.json', '{"version": 1,\n "name": ');
    const r = await c.call('project.openUpload', [up.slot.token]);
    expect(r.ok).toBe(false);
    expect(r.error!.message).toMatch(/^broken\.json: not valid JSON at line 2/);
    noTemp(r.error!.message);
    writeFileSync(join(root, 'prior.csv'), '0.5,0.25,0.25\n');
    const ref = {
      version: 1,
      name: 'ref',
      domains: [{ id: 'd', domain: 'line:3' }],
      priors: [{ id: 'p', domain: 'd', prior: 'csv:prior.csv' }],
    };
    const up2 = await upload('ref.json', JSON.stringify(ref));
    const r2 = await c.call('project.openUpload', [up2.slot.token]);
    expect(r2.ok, JSON.stringify(r2.error)).toBe(true);
    expect((r2.value as { project: { priors: { prior: unknown }[] } }).project.priors[0]!.prior).toEqual({
      kind: 'vector',
      values: [0.5, 0.25, 0.25],
    });
  }, 60_000);

  it('an upload from another origin is refused, and a slot without a body opens nothing', async () => {
    const up = await upload('x.json', '{}', 'http://evil.example');
    expect(up.status).toBe(403);
    const r = await c.call('project.openUpload', [up.slot.token]);
    expect(r.ok).toBe(false);
    expect(r.error!.message).toMatch(/did not arrive/);
  });
});
