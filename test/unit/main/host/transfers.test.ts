/**
 * Web mode's transfers (src-main/host/transfers.ts): an offered file is taken
 * once and not after its time; an upload slot takes at most its bytes, once;
 * the bundle of a project with kept channels (src-main/project/bundle.ts)
 * comes back as a channel folder the store reads and checks; the page's
 * side (src-renderer/lib/file-transfer.ts) says where an export went and
 * passes a refusal on in the server's words.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  bytesText,
  downloadName,
  TEMP_MAX_BYTES,
  TEMP_MAX_ITEMS,
  TRANSFER_TTL_MS,
  Transfers,
  UNPACKED_TTL_MS,
} from '../../../../src-main/host/transfers';
import {
  MAX_BUNDLE_CHANNEL_BYTES,
  PROJECT_BUNDLE_FORMAT,
  projectFileText,
  unpackProjectFile,
} from '../../../../src-main/project/bundle';
import { ChannelStore } from '../../../../src-main/dispatcher/channel-store';
import { useScratchDirs } from '../../support/scratch-dirs';
import { delivered, sizeText, uploadPicked } from '../../../../src-renderer/lib/file-transfer';
import type { DownloadOffer } from '../../../../src-shared/protocol/api';

const scratch = useScratchDirs();

describe('Transfers', () => {
  it('offers a file once, under a cleaned name, until it expires', async () => {
    let now = 1000;
    const t = new Transfers(() => now);
    const f = await t.newFile('.csv');
    writeFileSync(f, 'a,b\n');
    const o = await t.offer(f, '../etc/passwd"x.csv', 'text/csv');
    expect(o).toMatchObject({ name: 'etc-passwd-x.csv', bytes: 4 });
    expect(o.url).toMatch(/^\/download\/[A-Za-z0-9_-]{32}$/);
    const token = o.url.slice('/download/'.length);
    expect(t.take(token)).toEqual({ file: f, name: 'etc-passwd-x.csv', mime: 'text/csv' });
    expect(t.take(token)).toBeNull();
    const g = await t.newFile('.csv');
    writeFileSync(g, 'x');
    const late = await t.offer(g, 'late.csv', 'text/csv');
    now += TRANSFER_TTL_MS;
    expect(t.take(late.url.slice('/download/'.length))).toBeNull();
    await t.dispose();
    expect(existsSync(f)).toBe(false);
  });

  it('an upload slot takes at most its bytes, once, and hands the file over once', async () => {
    const t = new Transfers();
    const s = await t.slot('homes.csv', 10);
    expect(await t.receive(s.token, Readable.from([Buffer.from('0123456789')]), 10)).toEqual({
      status: 204,
      message: '',
    });
    expect((await t.receive(s.token, Readable.from([Buffer.from('x')]), 1)).status).toBe(404);
    const got = t.claim(s.token)!;
    expect(got.name).toBe('homes.csv');
    expect(readFileSync(got.file, 'utf8')).toBe('0123456789');
    expect(t.claim(s.token)).toBeNull();
    // declared too large: refused before reading; sent too large without saying so: cut off and removed
    const big = await t.slot('big.csv', 10);
    expect(await t.receive(big.token, Readable.from([Buffer.from('x')]), 11)).toEqual({
      status: 413,
      message: 'big.csv is over the 10 bytes the app takes',
    });
    const sly = await t.slot('sly.csv', 10);
    expect((await t.receive(sly.token, Readable.from([Buffer.alloc(6), Buffer.alloc(6)]), null)).status).toBe(413);
    expect(t.claim(sly.token)).toBeNull();
    expect((await t.receive('x'.repeat(32), Readable.from([]), 0)).status).toBe(404);
    await t.dispose();
  });

  it('download names keep no folder or control character', () => {
    expect(downloadName('a/b\\c\u0000d.csv')).toBe('a-b-c-d.csv');
    expect(downloadName('...')).toBe('download');
  });
});

describe("the private folder's caps and expiry", () => {
  const later = 'fetch the downloads waiting, or try again when they expire (15 minutes)';
  const held = "held by downloads not yet fetched, uploads not yet opened and uploaded projects' channels";

  it('an upload slot or a download past the byte cap is refused with one line naming the cap; expired ones free their room', async () => {
    expect([TEMP_MAX_BYTES, TEMP_MAX_ITEMS, bytesText(TEMP_MAX_BYTES)]).toEqual([2 * 2 ** 30, 64, '2 GiB']);
    let now = 0;
    const t = new Transfers({ now: () => now, maxBytes: 100 });
    // a slot holds the size the page announced, from the slot on
    const a = await t.slot('a.json', 1000, 60);
    expect(t.usedBytes).toBe(60);
    await expect(t.slot('b.json', 1000, 50)).rejects.toMatchObject({
      code: 'too-large',
      message: `b.json (50 bytes) does not fit in the server's temporary space, capped at 100 bytes: 60 bytes is ${held}; ${later}`,
    });
    // a download written past the cap is refused and its file removed
    const f = await t.newFile('.csv');
    writeFileSync(f, 'x'.repeat(41));
    await expect(t.offer(f, 'lp-channel.csv', 'text/csv')).rejects.toThrow(
      `lp-channel.csv (41 bytes) does not fit in the server's temporary space, capped at 100 bytes: 60 bytes is ${held}; ${later}`,
    );
    expect(existsSync(f)).toBe(false);
    // the body arrives (smaller than announced): the slot holds what arrived
    expect(await t.receive(a.token, Readable.from([Buffer.alloc(30)]), 30)).toEqual({ status: 204, message: '' });
    expect(t.usedBytes).toBe(30);
    const g = await t.newFile('.csv');
    writeFileSync(g, 'y'.repeat(70));
    const o = await t.offer(g, 'tg.csv', 'text/csv');
    expect(t.usedBytes).toBe(100);
    // full: no export is even written
    await expect(t.newFile('.csv', 'released.csv')).rejects.toThrow(
      `released.csv does not fit in the server's temporary space, capped at 100 bytes: 100 bytes is ${held}`,
    );
    // fifteen minutes on, the slot and the download are gone with their files, and their room is free
    const upload = t.claim(a.token);
    expect(upload).not.toBeNull();
    const again = await t.slot('c.json', 1000, 0);
    now += TRANSFER_TTL_MS;
    await t.sweep();
    expect(existsSync(g)).toBe(false);
    expect(t.take(o.url.slice('/download/'.length))).toBeNull();
    expect(t.claim(again.token)).toBeNull();
    expect(t.usedBytes).toBe(0);
    await expect(t.slot('b.json', 1000, 50)).resolves.toMatchObject({ url: expect.stringMatching(/^\/upload\//) });
    await t.dispose();
  });

  it('at most maxItems slots and downloads wait; a body larger than announced is refused', async () => {
    const t = new Transfers({ maxItems: 2 });
    await t.slot('1.json', 1000, 1);
    const two = await t.slot('2.json', 1000, 5);
    await expect(t.slot('3.json', 1000, 1)).rejects.toThrow(
      `3.json (1 byte): the server already holds 2 downloads and uploads waiting, its cap of 2; ${later}`,
    );
    expect(await t.receive(two.token, Readable.from([Buffer.alloc(6)]), 6)).toEqual({
      status: 413,
      message: '2.json is larger than the 5 bytes its upload was announced as: pick it again',
    });
    expect(await t.receive((await t.slot('4.json', 10, 1)).token, Readable.from([Buffer.alloc(11)]), null)).toEqual({
      status: 413,
      message: '4.json is over the 10 bytes the app takes',
    });
    await t.dispose();
  });

  it("an uploaded project's channels count against the cap and are removed after going unread for their time", async () => {
    let now = 0;
    const t = new Transfers({ now: () => now, maxBytes: 10_000 });
    const store = new ChannelStore();
    const id = store.put({
      rows: 2,
      cols: 2,
      data: [0.75, 0.25, 0.25, 0.75],
      rowLabels: ['0', '1'],
      colLabels: ['0', '1'],
    });
    const dir = await t.newFolder();
    await store.saveTo(dir, [id]);
    const reader = new ChannelStore();
    reader.onFolderRead((d) => t.touch(d));
    let expired = 0;
    const bytes = await t.hold(dir, 'p.json', () => (expired++, reader.removeFolder(dir)));
    expect(bytes).toBeGreaterThan(32);
    expect(t.usedBytes).toBe(bytes);
    reader.addFolder(dir, 'p.json');
    // read just before its time: the time starts again
    now += UNPACKED_TTL_MS - 1;
    expect((await reader.locate(id)).ok).toBe(true);
    now += UNPACKED_TTL_MS - 1;
    await t.sweep();
    expect([existsSync(dir), expired]).toEqual([true, 0]);
    now += 1;
    await t.sweep();
    expect([existsSync(dir), expired, t.usedBytes]).toEqual([false, 1, 0]);
    // over the cap: refused, naming the upload, and removed
    const small = new Transfers({ maxBytes: bytes - 1 });
    const d2 = await small.newFolder();
    await store.saveTo(d2, [id]);
    await expect(small.hold(d2, 'p.json', () => undefined)).rejects.toThrow(
      `p.json's kept channels (${bytes} bytes) does not fit in the server's temporary space, capped at ${bytes - 1} bytes: 0 bytes is ${held}`,
    );
    expect(existsSync(d2)).toBe(false);
    await small.dispose();
    await t.dispose();
  });
});

describe('project bundle', () => {
  it('a project without kept channels is its plain file; with them a bundle the store reads back', async () => {
    const project = { version: 1, name: 'p', domains: [{ id: 'd', domain: 'line:2' }] };
    expect(JSON.parse(await projectFileText(project, null))).toEqual(project);
    const store = new ChannelStore();
    const ch = { rows: 2, cols: 2, data: [0.75, 0.25, 0.25, 0.75], rowLabels: ['0', '1'], colLabels: ['0', '1'] };
    const id = store.put(ch);
    const folder = join(scratch(), 'p.channels');
    await store.saveTo(folder, [id]);
    const text = await projectFileText(project, folder);
    const doc = JSON.parse(text) as { format: string; channels: Record<string, string> };
    expect(doc.format).toBe(PROJECT_BUNDLE_FORMAT);
    expect(Object.keys(doc.channels).sort()).toEqual([`${id}.f64`, `${id}.json`]);
    const into = scratch();
    expect(JSON.parse(await unpackProjectFile(text, 'p.mechstudio.json', into))).toEqual(project);
    const fresh = new ChannelStore();
    fresh.addFolder(into);
    const found = await fresh.locate(id);
    expect(found.ok && Array.from(found.channel.data)).toEqual(ch.data);
    // damaged after the upload: the problem names the user's file, not the private folder
    const f64 = join(into, `${id}.f64`);
    const bytes = readFileSync(f64);
    bytes[3] = bytes[3]! ^ 0x10;
    writeFileSync(f64, bytes);
    const again = new ChannelStore();
    again.addFolder(into, 'p.mechstudio.json');
    const damaged = await again.locate(id);
    expect(damaged.ok).toBe(false);
    const problem = damaged.ok ? '' : damaged.problem;
    expect(problem).toContain(`the kept channel file p.mechstudio.json/${id}.f64`);
    expect(problem).not.toContain(into);
    // a plain project file passes through; a bundle naming another kind of file is refused, naming the user's file
    expect(await unpackProjectFile('{"version":1}', 'a.json', into)).toBe('{"version":1}');
    const evil = JSON.stringify({ format: PROJECT_BUNDLE_FORMAT, version: 1, project, channels: { '../x.f64': '' } });
    await expect(unpackProjectFile(evil, 'mine.json', into)).rejects.toThrow(
      /^mine\.json: the bundle's channels hold an entry that is not a kept channel file/,
    );
    expect(existsSync(join(into, '..', 'x.f64'))).toBe(false);
    expect(MAX_BUNDLE_CHANNEL_BYTES).toBe(128 * 2 ** 20);
  });
});

describe('the page side', () => {
  it('an export says where it went: a download it starts, the files written, or nothing when cancelled', () => {
    const started: DownloadOffer[] = [];
    const offer = { url: '/download/t', name: 'lp-channel.csv', bytes: 4100 };
    expect(delivered({ files: [], download: offer }, (o) => started.push(o))).toBe(
      'downloaded lp-channel.csv (4.1 kB)',
    );
    expect(started).toEqual([offer]);
    expect(delivered({ files: ['/home/me/a.csv'] }, (o) => started.push(o))).toBe('wrote /home/me/a.csv');
    expect(delivered({ files: [] }, (o) => started.push(o))).toBeNull();
    expect(started).toEqual([offer]);
    expect(sizeText(812)).toBe('812 bytes');
    expect(sizeText(2_300_000)).toBe('2.3 MB');
  });

  it("an upload posts the file's bytes to its slot; a refusal is the server's line", async () => {
    const file = new File(['{"a":1}'], 'p.json');
    const api = {
      transfer: { slot: async (name: string, bytes: number) => ({ url: `/upload/${name}-${bytes}`, token: 'tok' }) },
    };
    const posted: string[] = [];
    const ok = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      posted.push(`${String(url)} ${await new Response(init!.body).text()}`);
      return new Response(null, { status: 204 });
    };
    expect(await uploadPicked(api, file, ok as typeof fetch)).toBe('tok');
    expect(posted).toEqual(['/upload/p.json-7 {"a":1}']);
    const refuse = (async () =>
      new Response('p.json is over the 256 MiB the app takes', { status: 413 })) as typeof fetch;
    await expect(uploadPicked(api, file, refuse)).rejects.toThrow('p.json is over the 256 MiB the app takes');
  });
});
