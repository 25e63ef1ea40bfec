/**
 * An optimal LP's channel kept with its project across a restart of the
 * web-mode host (a new server, dispatcher and channel store on the same
 * folders): saving writes the channel beside the project file, opening it in
 * the restarted host serves rows, measures, the CSV export and apply from
 * the kept doubles without solving again, and a damaged channel file is
 * refused with one message (the page then shows the result as not kept).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type Client, type TestServer } from './web-fixture';
import { readCsv } from '../../src-shared/csv/csv-reader';
import type { JobEvent, MeasureResult, MechanismResult, RowsResult } from '../../src-shared/protocol';

const dir = mkdtempSync(join(tmpdir(), 'mechstudio-web-kept-'));
const projectPath = join(dir, 'town.mechstudio.json');
const folder = join(dir, 'town.mechstudio.channels');
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A host on the shared folder; each start is a restart (nothing in memory), with its own channel cache. */
async function start(cache: string): Promise<{ t: TestServer; c: Client }> {
  const t = await startTestServer({ threads: 1, dir, channelCache: join(dir, cache) });
  servers.push(t);
  return { t, c: await t.connect() };
}

async function run<T>(c: Client, request: unknown): Promise<T> {
  const r = await c.call('submit', [request]);
  if (!r.ok) throw new Error(r.error!.message);
  const end = (await c.jobEnd(r.value as string)) as JobEvent;
  if (end.kind !== 'result') throw new Error(end.kind === 'error' ? end.error.message : end.kind);
  return end.result as T;
}

const spec = { domain: 'grid:3x3', epsilon: 1, kind: 'optimal', loss: 'dist' } as const;
let lp: MechanismResult;
let doubles: number[];

describe('a kept LP channel across a restart of the host', () => {
  it('is written beside the saved project', async () => {
    const { t, c } = await start('cache-1');
    // inline limit 0: the page never holds the matrix; the host keeps it
    lp = await run<MechanismResult>(c, { type: 'mechanism', ...spec, inlineLimit: 0, keepChannel: true });
    expect(lp.matrix).toBeUndefined();
    expect(lp.channelRef).toMatch(/^ch-[0-9a-f]{32}$/);
    const project = {
      version: 1,
      name: 'town',
      domains: [{ id: 'town', domain: spec.domain }],
      mechanisms: [{ id: 'lp', domain: 'town', kind: 'optimal', epsilon: 1, loss: 'dist' }],
      results: { lp: { hash: '0123456789abcdef', result: lp } },
    };
    const saved = await c.call('project.save', [project, projectPath]);
    expect(saved.ok, saved.error?.message).toBe(true);
    expect(saved.value).toEqual({ path: projectPath });
    expect(readdirSync(folder).sort()).toEqual([`${lp.channelRef}.f64`, `${lp.channelRef}.json`]);
    const bytes = readFileSync(join(folder, `${lp.channelRef}.f64`));
    doubles = Array.from(new Float64Array(bytes.buffer, bytes.byteOffset, 81));
    expect(doubles.slice(0, 9).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    await t.close();
  }, 120_000);

  it('serves rows, measures, the CSV export and apply after the restart, with no mechanism job', async () => {
    // a new cache: only the project's channel folder holds the channel
    const { t, c } = await start('cache-2');
    const started: string[] = [];
    t.dispatcher.onJobEvent((e) => {
      if (e.kind === 'queued') started.push(e.type);
    });
    const opened = await c.call('project.open', [projectPath]);
    expect(opened.ok, opened.error?.message).toBe(true);
    const status = await c.call('project.channels', [[lp.channelRef]]);
    expect(status.value).toEqual([{ channelRef: lp.channelRef, kept: true }]);

    const rows = await run<RowsResult>(c, { type: 'rows', channelRef: lp.channelRef, rows: [0, 8] });
    expect(rows.data).toEqual([doubles.slice(0, 9), doubles.slice(72, 81)]);
    const measure = await run<MeasureResult>(c, {
      type: 'measure',
      channelRef: lp.channelRef,
      domain: spec.domain,
      epsilon: 1,
      loss: 'dist',
    });
    expect(measure.expectedLoss).toBeCloseTo(lp.lp!.objective, 9);

    const csvPath = join(dir, 'lp-channel.csv');
    const exported = await c.call('project.export', [
      { kind: 'kept-channel-csv', channelRef: lp.channelRef, path: csvPath },
    ]);
    expect(exported.value).toEqual({ files: [csvPath] });
    const read = readCsv(readFileSync(csvPath, 'utf8'));
    if (!read.ok) throw new Error(read.problem.message);
    expect(read.rows[0]!.fields.slice(1)).toEqual(lp.matrix?.colLabels ?? rows.colLabels);
    expect(read.rows.slice(1).flatMap((r) => r.fields.slice(1).map(Number))).toEqual(doubles);

    const released = join(dir, 'released.csv');
    const applied = await c.call('project.export', [
      {
        kind: 'apply',
        request: { channelRef: lp.channelRef, domain: spec.domain, seed: 7 },
        secrets: 'cell\n(0,0)\n(2,2)\n(1,1)\n',
        path: released,
      },
    ]);
    expect(applied.ok, applied.error?.message).toBe(true);
    const v = applied.value as {
      apply: { result: { rows: number; outputs: number; forRelease: boolean }; released: string[] };
    };
    expect(v.apply.result).toMatchObject({ rows: 3, outputs: 9, forRelease: false });
    expect(v.apply.released).toHaveLength(3);
    for (const l of v.apply.released) expect(rows.colLabels).toContain(l);
    // nothing was solved: the host's jobs were the rows, the measure and the apply
    expect(started).toEqual(['rows', 'measure', 'apply']);
  }, 120_000);

  it('a damaged channel file is refused with one message naming it; the measure says the same', async () => {
    const dat = join(folder, `${lp.channelRef}.f64`);
    const bytes = readFileSync(dat);
    bytes[100] = bytes[100]! ^ 1;
    writeFileSync(dat, bytes);
    const { c } = await start('cache-3');
    await c.call('project.open', [projectPath]);
    const problem = `the kept channel file ${dat} does not match its sha256 (it was changed or damaged): compute its mechanism again`;
    const status = await c.call('project.channels', [[lp.channelRef]]);
    expect(status.value).toEqual([{ channelRef: lp.channelRef, kept: false, problem }]);
    const r = await c.call('submit', [{ type: 'measure', channelRef: lp.channelRef, domain: spec.domain }]);
    expect(r.error).toEqual({ code: 'invalid-input', message: problem });
  }, 120_000);
});
