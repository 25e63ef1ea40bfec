/**
 * A project bundle's channels are files anyone can write: a crafted channel
 * whose id and sha256 were recomputed for its doubles still has to be a
 * channel (finite entries, none negative, rows summing to 1) before the
 * channel store reads it back as kept. Each crafted one is refused with one
 * message naming its file and what is wrong.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChannelStore, channelId } from '../../../../src-main/dispatcher/channel-store';
import { PROJECT_BUNDLE_FORMAT, unpackProjectFile } from '../../../../src-main/project/bundle';

const dir = mkdtempSync(join(tmpdir(), 'ms-bundle-channels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bundle carrying one 2 x 2 channel with `data`, its id and sha256 computed as the app computes them. */
function craftedBundle(data: number[]): { text: string; id: string } {
  const labels = ['0', '1'];
  const doubles = Float64Array.from(data);
  const id = channelId({ rows: 2, cols: 2, data: doubles, rowLabels: labels, colLabels: labels });
  const bytes = Buffer.from(doubles.buffer);
  const record = {
    format: 'mechstudio-channel',
    version: 1,
    id,
    rows: 2,
    cols: 2,
    dtype: 'float64le',
    sha256: createHash('sha256').update(bytes).digest('hex'),
    rowLabels: labels,
    colLabels: labels,
  };
  const project = { version: 1, name: 'crafted', domains: [{ id: 'd', domain: 'line:2' }] };
  const channels = { [`${id}.json`]: JSON.stringify(record), [`${id}.f64`]: bytes.toString('base64') };
  return { text: JSON.stringify({ format: PROJECT_BUNDLE_FORMAT, version: 1, project, channels }), id };
}

async function opened(
  data: number[],
): Promise<{ id: string; lookup: Awaited<ReturnType<ChannelStore['locate']>>; file: string }> {
  const folder = mkdtempSync(join(dir, 'up-'));
  const { text, id } = craftedBundle(data);
  await unpackProjectFile(text, 'crafted.json', folder);
  const store = new ChannelStore();
  store.addFolder(folder);
  return { id, lookup: await store.locate(id), file: join(folder, `${id}.f64`) };
}

describe('a crafted bundle channel (id and sha256 recomputed) is read back only when it is a channel', () => {
  it.each([
    ['a NaN entry', [Number.NaN, 1, 0.5, 0.5], 'entry (0, 0) is NaN, not a number'],
    ['a negative entry', [1.5, -0.5, 0.5, 0.5], 'entry (0, 1) is negative (-0.5)'],
    ['a row summing to 2', [1, 1, 0.5, 0.5], 'row 0 sums to 2, not 1 (tolerance 1e-9)'],
  ])('%s is refused, naming the file', async (_what, data, why) => {
    const { lookup, file } = await opened(data);
    expect(lookup).toEqual({
      ok: false,
      problem: `the kept channel file ${file} is not a channel of probabilities (${why}): compute its mechanism again`,
    });
  });

  it("a channel of probabilities is read back (the privacy check is the host's, at the eps its result claims)", async () => {
    const { lookup } = await opened([1, 0, 0, 1]);
    expect(lookup.ok).toBe(true);
    if (lookup.ok) expect(Array.from(lookup.channel.data)).toEqual([1, 0, 0, 1]);
  });
});
