/**
 * Web mode's private folder through the host (src-main/host/host.ts over
 * src-main/host/transfers.ts): an upload slot the folder has no room for is
 * refused with the cap's one line; an uploaded project's unpacked channels
 * are counted and, once unread for UNPACKED_TTL_MS, removed and no longer
 * looked for. The clock is the test's.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MechStudioHost, type JobService } from '../../../../src-main/host/host';
import { createProjectStore } from '../../../../src-main/host/project-store';
import { ChannelStore } from '../../../../src-main/dispatcher/channel-store';
import { useScratchDirs } from '../../support/scratch-dirs';
import { Transfers, UNPACKED_TTL_MS } from '../../../../src-main/host/transfers';
import { projectFileText } from '../../../../src-main/project/bundle';
import type { HostSession } from '../../../../src-main/host/api-host';
import type { JobRunner } from '../../../../src-main/dispatcher/job-runner';
import type { ChannelStatus, UploadSlot } from '../../../../src-shared/protocol';

const ROOT = join(__dirname, '../../../..');
const scratch = useScratchDirs();

const noJobs: JobService = { submit: () => 'x', cancel: () => false, onJobEvent: () => () => undefined, workers: 1 };
const session: HostSession = { id: 's', emit: () => undefined };

function webHost(transfers: Transfers, channels: ChannelStore): MechStudioHost {
  const store = createProjectStore({} as JobRunner, {
    examplesDir: join(ROOT, 'resources/examples'),
    configDir: join(scratch(), 'config'),
  });
  return new MechStudioHost({ mode: 'web', version: 'test', jobs: noJobs, store, channels, transfers });
}

/** Upload `text` as `name` through the host's slot and open it. */
async function openUploaded(host: MechStudioHost, t: Transfers, name: string, text: string): Promise<unknown> {
  const bytes = Buffer.byteLength(text);
  const slot = (await host.call('transfer.slot', [name, bytes], session)) as UploadSlot;
  expect(await t.receive(slot.token, Readable.from([Buffer.from(text)]), bytes)).toEqual({ status: 204, message: '' });
  return host.call('project.openUpload', [slot.token], session);
}

describe("web mode's private folder through the host", () => {
  it("an uploaded bundle's channels are held, read while fresh, removed once unread for their time", async () => {
    let now = 0;
    const t = new Transfers({ now: () => now });
    // two channels in the bundle: one read (in memory from then on), one never read until after the expiry
    const maker = new ChannelStore();
    const ch = (p: number) => ({
      rows: 2,
      cols: 2,
      data: [p, 1 - p, 1 - p, p],
      rowLabels: ['0', '1'],
      colLabels: ['0', '1'],
    });
    const [read, unread] = [maker.put(ch(0.75)), maker.put(ch(0.6))];
    const folder = join(scratch(), 'p.channels');
    await maker.saveTo(folder, [read, unread]);
    const project = { version: 2, name: 'p', domains: [{ id: 'd', domain: 'line:2' }] };
    const text = await projectFileText(project, folder);
    const channels = new ChannelStore();
    const host = webHost(t, channels);
    expect(await openUploaded(host, t, 'p.mechstudio.json', text)).toMatchObject({ path: null, project });
    const held = [...t['held'].keys()];
    expect(held).toHaveLength(1);
    expect(t.usedBytes).toBeGreaterThan(2 * 32);
    now += UNPACKED_TTL_MS - 1;
    expect(await host.call('project.channels', [[read]], session)).toEqual([{ channelRef: read, kept: true }]);
    // the read started its time again
    now += UNPACKED_TTL_MS - 1;
    await t.sweep();
    expect(existsSync(held[0]!)).toBe(true);
    now += 1;
    await t.sweep();
    expect([existsSync(held[0]!), t.usedBytes]).toEqual([false, 0]);
    const status = (await host.call('project.channels', [[read, unread]], session)) as ChannelStatus[];
    expect(status[0]).toEqual({ channelRef: read, kept: true });
    expect(status[1]).toEqual({
      channelRef: unread,
      kept: false,
      problem: `the channel ${unread} is no longer kept by the app (its files are in neither the project's channel folder nor the app's cache): compute its mechanism again`,
    });
    host.dispose();
    await t.dispose();
  });

  it('a slot past the cap is refused naming it; a failed open leaves no folder behind', async () => {
    const t = new Transfers({ maxBytes: 1000 });
    const host = webHost(t, new ChannelStore());
    await expect(host.call('transfer.slot', ['big.json', 1001], session)).rejects.toMatchObject({
      code: 'too-large',
      message: expect.stringMatching(
        /^big\.json \(1001 bytes\) does not fit in the server's temporary space, capped at 1000 bytes: 0 bytes is held by/,
      ),
    });
    await expect(openUploaded(host, t, 'broken.json', '{"version": 1,')).rejects.toThrow(/^broken\.json: /);
    const dir = t['folder'] ? await t['folder'] : null;
    expect(dir && readdirSync(dir)).toEqual([]);
    expect(t.usedBytes).toBe(0);
    host.dispose();
    await t.dispose();
  });
});
