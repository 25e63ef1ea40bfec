/**
 * A project bundle is a file anyone can write: its kept channel's id and
 * sha256 can be recomputed for any doubles, and its result can claim
 * "certified optimal at eps 1" for them. Opened on the web host, a channel
 * asked with the domain and eps its result claims is privacy-checked there
 * (an identity channel is not kept, with its effective eps), and Apply
 * refuses to release through a channel that is not private at the eps it
 * is released under, whatever the file says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type Client, type TestServer } from './web-fixture';
import { channelId } from '../../src-main/dispatcher/channel-store';
import { PROJECT_BUNDLE_FORMAT } from '../../src-main/project/bundle';
import type { ChannelStatus, JobEvent, MechanismResult, UploadSlot } from '../../src-shared/protocol';

let root = '';
let t: TestServer;
let c: Client;
let lp: MechanismResult;
const labels = ['0', '1', '2'];
const identity = [1, 0, 0, 0, 1, 0, 0, 0, 1];
const identityId = channelId({
  rows: 3,
  cols: 3,
  data: Float64Array.from(identity),
  rowLabels: labels,
  colLabels: labels,
});

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mechstudio-kept-claims-'));
  t = await startTestServer({ threads: 1, transfers: true, root });
  c = await t.connect();
  const r = await c.call('submit', [
    {
      type: 'mechanism',
      domain: 'line:3',
      epsilon: 1,
      kind: 'optimal',
      loss: 'dist',
      inlineLimit: 0,
      keepChannel: true,
    },
  ]);
  const end = (await c.jobEnd(r.value as string)) as JobEvent;
  if (end.kind !== 'result') throw new Error(JSON.stringify(end));
  lp = end.result as MechanismResult;
}, 60_000);
afterAll(async () => {
  await t?.close();
  rmSync(root, { recursive: true, force: true });
});

/**
 * A bundle whose LP result (a real one's, eps 1 on line:3) names a channel with these doubles, id and sha256
 * recomputed.
 */
function bundle(data: number[]): { text: string; id: string } {
  const doubles = Float64Array.from(data);
  const id = channelId({ rows: 3, cols: 3, data: doubles, rowLabels: labels, colLabels: labels });
  const bytes = Buffer.from(doubles.buffer);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const record = {
    format: 'mechstudio-channel',
    version: 1,
    id,
    rows: 3,
    cols: 3,
    dtype: 'float64le',
    sha256,
    rowLabels: labels,
    colLabels: labels,
  };
  const project = {
    version: 1,
    name: 'crafted',
    domains: [{ id: 'd', domain: 'line:3' }],
    mechanisms: [{ id: 'lp', domain: 'd', kind: 'optimal', epsilon: 1, loss: 'dist' }],
    results: { lp: { hash: '0123456789abcdef', result: { ...lp, channelRef: id } } },
  };
  const channels = { [`${id}.json`]: JSON.stringify(record), [`${id}.f64`]: bytes.toString('base64') };
  return { text: JSON.stringify({ format: PROJECT_BUNDLE_FORMAT, version: 1, project, channels }), id };
}

async function openBundle(text: string): Promise<void> {
  const r = await c.call('transfer.slot', ['crafted.mechstudio.json', Buffer.byteLength(text)]);
  const slot = r.value as UploadSlot;
  const res = await fetch(`http://127.0.0.1:${t.server.port}${slot.url}`, {
    method: 'POST',
    body: text,
    headers: { origin: t.origin },
  });
  expect(res.ok).toBe(true);
  const opened = await c.call('project.openUpload', [slot.token]);
  expect(opened.ok, opened.error?.message).toBe(true);
}

describe('a crafted bundle: an identity channel under a "certified optimal, eps 1" result', () => {
  it('is not kept when asked at the eps its result claims; the real LP channel is, with its check', async () => {
    const { text, id } = bundle(identity);
    expect(id).toBe(identityId);
    await openBundle(text);
    const r = await c.call('project.channels', [
      [
        { channelRef: id, domain: 'line:3', epsilon: 1 },
        { channelRef: lp.channelRef, domain: 'line:3', epsilon: 1 },
      ],
    ]);
    expect(r.ok, r.error?.message).toBe(true);
    const [bad, good] = r.value as ChannelStatus[];
    expect(bad).toMatchObject({
      channelRef: id,
      kept: false,
      problem: `the channel ${id} is not 1*d-private on line:3 as its result says: its effective eps is infinite: compute its mechanism again`,
    });
    expect(bad!.check).toMatchObject({ type: 'check', epsilon: 1, private: false });
    expect(good).toMatchObject({ channelRef: lp.channelRef, kept: true, check: { private: true, epsilon: 1 } });
    expect(good!.check!.effectiveEpsilon).toBeLessThanOrEqual(1 + 1e-9);
  }, 60_000);

  it('Apply refuses to release through it, at the eps of its mechanism and without one', async () => {
    const secrets = 'secret\n0\n1\n2\n';
    const at = await c.call('project.export', [
      { kind: 'apply', request: { channelRef: identityId, domain: 'line:3', epsilon: 1 }, secrets, name: 'out.csv' },
    ]);
    expect(at.error).toEqual({
      code: 'invalid-input',
      message:
        'apply: the channel is not 1*d-private on line:3: its effective eps is infinite (secrets 0 and 1, output 0); it is not released',
    });
    const none = await c.call('project.export', [
      { kind: 'apply', request: { channelRef: identityId, domain: 'line:3' }, secrets, name: 'out.csv' },
    ]);
    expect(none.error).toEqual({
      code: 'invalid-input',
      message:
        'apply: the channel is private at no eps: a positive entry faces a zero in the same output (secrets 0 and 1, output 0); it is not released',
    });
  }, 60_000);

  it('a channel with a NaN, a negative entry or a row summing to 2 is not kept (named as the uploaded file)', async () => {
    const cases: [number[], string][] = [
      [[Number.NaN, 1, 0, 0, 1, 0, 0, 0, 1], 'entry (0, 0) is NaN, not a number'],
      [[1.5, -0.5, 0, 0, 1, 0, 0, 0, 1], 'entry (0, 1) is negative (-0.5)'],
      [[1, 1, 0, 0, 1, 0, 0, 0, 1], 'row 0 sums to 2, not 1 (tolerance 1e-9)'],
    ];
    for (const [data, why] of cases) {
      const { text, id } = bundle(data);
      await openBundle(text);
      const r = await c.call('project.channels', [[{ channelRef: id, domain: 'line:3', epsilon: 1 }]]);
      expect(r.value).toEqual([
        {
          channelRef: id,
          kept: false,
          problem: `the kept channel file crafted.mechstudio.json/${id}.f64 is not a channel of probabilities (${why}): compute its mechanism again`,
        },
      ]);
    }
  }, 60_000);
});
