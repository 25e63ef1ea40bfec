/**
 * Channels kept by the host: an optimal LP's channel is kept by the
 * dispatcher (keepChannel -> channelRef), and measure, check and rows
 * requests name it instead of carrying the matrix through the page. The
 * numbers equal those of the same requests with the matrix inline. Kept
 * channels are written to disk (the app's cache, a saved project's channel
 * folder) and read back, checked, by a new store: a restarted host.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src-main/dispatcher/dispatcher';
import { ChannelStore, channelFolderOf, channelId } from '../../src-main/dispatcher/channel-store';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suiteDispatcher } from './dispatcher-fixture';
import { ApiError } from '../../src-shared/protocol/api';
import type { CheckResult, MeasureResult, MechanismResult, RowsResult } from '../../src-shared/protocol/results';

describe('channel store', () => {
  it('content-addressed ids, least recently used dropped beyond the entry budget', () => {
    const s = new ChannelStore(8);
    const a = { rows: 2, cols: 2, data: [1, 0, 0, 1], rowLabels: ['a', 'b'], colLabels: ['a', 'b'] };
    const b = { ...a, data: [0.5, 0.5, 0.5, 0.5] };
    const c = { ...a, data: [0.25, 0.75, 0.75, 0.25] };
    const ia = s.put(a);
    expect(s.put({ ...a, data: a.data.slice() })).toBe(ia);
    const ib = s.put(b);
    expect(ib).not.toBe(ia);
    expect(Array.from(s.get(ia)!.data)).toEqual(a.data); // a is now the most recent
    s.put(c); // 12 entries > 8: the least recently used (b) goes
    expect(s.get(ib)).toBeUndefined();
    expect(s.get(ia)!.rowLabels).toEqual(a.rowLabels);
    expect(s.size).toBe(2);
  });
});

describe('dispatcher keeps channels by reference', () => {
  const dispatcher = suiteDispatcher({ threads: 1 });

  it('an optimal LP above the inline limit: no matrix sent back, a channelRef whose measure, check and rows equal the inline ones', async () => {
    const d = dispatcher();
    const spec = { domain: 'grid:4x4', epsilon: 1, kind: 'optimal', loss: 'dist' };
    const kept = (await d.run({ type: 'mechanism', ...spec, inlineLimit: 100, keepChannel: true })) as MechanismResult;
    expect(kept.matrix).toBeUndefined();
    expect(kept.channelRef).toMatch(/^ch-[0-9a-f]{32}$/);
    const full = (await d.run({ type: 'mechanism', ...spec, inlineLimit: 1000 })) as MechanismResult;
    const matrix = full.matrix!;
    expect(full.channelRef).toBeUndefined();

    const byRef = (await d.run({
      type: 'measure',
      channelRef: kept.channelRef,
      domain: spec.domain,
      epsilon: 1,
      loss: 'dist',
    })) as MeasureResult;
    const inline = (await d.run({
      type: 'measure',
      channel: matrix,
      domain: spec.domain,
      epsilon: 1,
      loss: 'dist',
    })) as MeasureResult;
    expect(byRef.utility).toBe(inline.utility);
    expect(byRef.expectedLoss).toBe(inline.expectedLoss);
    expect(byRef.expectedLoss).toBeCloseTo(full.lp!.objective, 9);

    const check = (await d.run({
      type: 'check',
      channelRef: kept.channelRef,
      domain: spec.domain,
      epsilon: 1,
    })) as CheckResult;
    expect(check.private).toBe(true);
    expect(check.effectiveEpsilon).toBeLessThanOrEqual(1 + 1e-9);

    // rows of a kept channel are cut by the host itself: the numbers of the inline matrix
    const rows = (await d.run({ type: 'rows', channelRef: kept.channelRef, rows: [5, 0], colFrom: 2 })) as RowsResult;
    expect(rows.data![0]).toEqual(matrix.data.slice(5 * 16 + 2, 6 * 16));
    expect(rows.data![1]).toEqual(matrix.data.slice(2, 16));
    expect(rows.rowLabels).toEqual([matrix.rowLabels[5], matrix.rowLabels[0]]);
    expect(rows.colLabels).toEqual(matrix.colLabels.slice(2));
    const blocks = (await d.run({ type: 'rows', channelRef: kept.channelRef, blocks: 3 })) as RowsResult;
    // brute force: block (2, 1) covers rows 10..15 and columns 5..9
    let s = 0;
    for (let r = 10; r < 16; r++) for (let c = 5; c < 10; c++) s += matrix.data[r * 16 + c]!;
    expect(blocks.blocks!.means[2 * 3 + 1]).toBeCloseTo(s / 30, 15);
    await expect(d.run({ type: 'rows', channelRef: kept.channelRef, rows: [16] })).rejects.toSatisfy(
      (e: unknown) => e instanceof ApiError && e.code === 'invalid-input' && /row 16 does not exist/.test(e.message),
    );
  }, 60_000);

  it('a 2,500-cell channel (6.25M entries, over what a request may carry inline) is kept and measured by reference', async () => {
    const d = dispatcher();
    const spec = { domain: 'grid:50x50:step=0.5', epsilon: 1.386, kind: 'exponential' } as const;
    const kept = (await d.run({
      type: 'mechanism',
      ...spec,
      keepChannel: true,
      inlineLimit: 160_000,
    })) as MechanismResult;
    expect(kept.matrix).toBeUndefined();
    expect(kept.channelRef).toMatch(/^ch-[0-9a-f]{32}$/);
    expect(d.channels.get(kept.channelRef!)!.data.length).toBe(2500 * 2500);
    const byRef = (await d.run({
      type: 'measure',
      channelRef: kept.channelRef,
      domain: spec.domain,
      epsilon: spec.epsilon,
    })) as MeasureResult;
    const byConstruction = (await d.run({
      type: 'measure',
      mechanism: spec,
      domain: spec.domain,
      epsilon: spec.epsilon,
    })) as MeasureResult;
    expect(byRef.utility).toBe(kept.utility);
    expect(byRef.utility).toBeCloseTo(byConstruction.utility, 12);
    const rows = (await d.run({
      type: 'rows',
      channelRef: kept.channelRef,
      rows: [2499],
      colFrom: 2490,
    })) as RowsResult;
    const built = (await d.run({ type: 'rows', mechanism: spec, rows: [2499], colFrom: 2490 })) as RowsResult;
    expect(rows.data).toEqual(built.data);
  }, 120_000);

  it('within the inline limit the matrix comes back too; an unknown channelRef is one clear error', async () => {
    const d = dispatcher();
    const r = (await d.run({
      type: 'mechanism',
      domain: 'line:4',
      epsilon: 1,
      kind: 'optimal',
      keepChannel: true,
    })) as MechanismResult;
    expect(r.matrix?.rows).toBe(4);
    expect(r.channelRef).toMatch(/^ch-/);
    await expect(d.run({ type: 'measure', channelRef: 'ch-0123456789abcdef0123456789abcdef' })).rejects.toSatisfy(
      (e: unknown) =>
        e instanceof ApiError && e.code === 'invalid-input' && /no longer kept by the app/.test(e.message),
    );
    await expect(d.run({ type: 'measure', channelRef: 'nope' })).rejects.toBeInstanceOf(ApiError);
  }, 60_000);
});

describe('kept channels on disk survive a restart', () => {
  const dirs: string[] = [];
  const tmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'mechstudio-kept-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("an LP's channel is written to the cache as it is kept; a new store (a restarted host) reads it back bit for bit", async () => {
    const cache = tmp();
    const d = new Dispatcher({ threads: 1, channels: new ChannelStore({ cacheDir: cache }) });
    let kept: MechanismResult;
    let original: Float64Array;
    try {
      kept = (await d.run({
        type: 'mechanism',
        domain: 'grid:3x3',
        epsilon: 1,
        kind: 'optimal',
        loss: 'dist',
        keepChannel: true,
      })) as MechanismResult;
      original = d.channels.get(kept.channelRef!)!.data.slice();
      expect(Array.from(original)).toEqual(kept.matrix!.data);
    } finally {
      await d.close(); // waits for the cache write
    }
    const id = kept.channelRef!;
    expect(readdirSync(cache).sort()).toEqual([`${id}.f64`, `${id}.json`]);
    expect(statSync(join(cache, `${id}.f64`)).size).toBe(81 * 8);
    const record = JSON.parse(readFileSync(join(cache, `${id}.json`), 'utf8')) as Record<string, unknown> & {
      producedBy: { request: Record<string, unknown> };
    };
    expect(record).toMatchObject({ format: 'mechstudio-channel', id, rows: 9, cols: 9, dtype: 'float64le' });
    expect(record.producedBy.request).toMatchObject({ domain: 'grid:3x3', kind: 'optimal', loss: 'dist' });
    expect(record.producedBy.request.keepChannel).toBeUndefined();

    // the restarted host: nothing in memory, the same cache
    const again = new ChannelStore({ cacheDir: cache });
    expect(again.size).toBe(0);
    const found = await again.locate(id);
    if (!found.ok) throw new Error(found.problem);
    expect(Buffer.from(found.channel.data.buffer).equals(Buffer.from(original!.buffer))).toBe(true);
    expect(found.channel.rowLabels).toEqual(kept.matrix!.rowLabels);
    expect(channelId(found.channel)).toBe(id);
    // and a job names it there: the dispatcher reads it back before the job starts
    const d2 = new Dispatcher({ threads: 1, channels: new ChannelStore({ cacheDir: cache }) });
    try {
      const m = (await d2.run({
        type: 'measure',
        channelRef: id,
        domain: 'grid:3x3',
        epsilon: 1,
        loss: 'dist',
      })) as MeasureResult;
      expect(m.expectedLoss).toBeCloseTo(kept.lp!.objective, 9);
    } finally {
      await d2.close();
    }
  }, 60_000);

  it("saving writes a project's channels beside it and drops those no longer named; a corrupt or missing file is refused with one message", async () => {
    const s = new ChannelStore();
    const a = { rows: 2, cols: 2, data: [0.75, 0.25, 0.25, 0.75], rowLabels: ['x', 'y'], colLabels: ['x', 'y'] };
    const b = { ...a, data: [0.5, 0.5, 0.5, 0.5] };
    const ia = s.put(a);
    const ib = s.put(b);
    const project = join(tmp(), 'town.mechstudio.json');
    const folder = channelFolderOf(project);
    expect(folder).toBe(project.replace(/\.json$/, '.channels'));
    expect(await s.saveTo(folder, [ia, ib])).toEqual({ written: [ia, ib], missing: [] });
    expect(await s.saveTo(folder, [ia])).toEqual({ written: [], missing: [] });
    expect(readdirSync(folder).sort()).toEqual([`${ia}.f64`, `${ia}.json`]);

    const reopen = (): ChannelStore => {
      const t = new ChannelStore();
      t.addFolder(folder);
      return t;
    };
    const ok = await reopen().locate(ia);
    expect(ok.ok && Array.from(ok.channel.data)).toEqual(a.data);
    const unknown = await reopen().locate(ib);
    expect(unknown).toEqual({
      ok: false,
      problem: expect.stringMatching(/no longer kept by the app .*compute its mechanism again/),
    });

    const dat = join(folder, `${ia}.f64`);
    const bytes = readFileSync(dat);
    bytes[3] = bytes[3]! ^ 0x10; // one bit of one double
    writeFileSync(dat, bytes);
    expect(await reopen().locate(ia)).toEqual({
      ok: false,
      problem: `the kept channel file ${dat} does not match its sha256 (it was changed or damaged): compute its mechanism again`,
    });
    writeFileSync(dat, bytes.subarray(0, 24));
    expect(await reopen().locate(ia)).toEqual({
      ok: false,
      problem: `the kept channel file ${dat} has 24 bytes, not the 32 of a 2 x 2 channel of doubles: compute its mechanism again`,
    });
    rmSync(dat);
    expect(await reopen().locate(ia)).toEqual({
      ok: false,
      problem: `the kept channel file ${dat} is missing: compute its mechanism again`,
    });
    // a record whose labels were edited no longer hashes to its name
    writeFileSync(dat, Buffer.from(Float64Array.from(a.data).buffer));
    const rec = join(folder, `${ia}.json`);
    writeFileSync(rec, readFileSync(rec, 'utf8').replace('"rowLabels":["x","y"]', '"rowLabels":["x","z"]'));
    expect(await reopen().locate(ia)).toEqual({
      ok: false,
      problem: `the kept channel file ${dat} does not hash to its name (labels or doubles changed): compute its mechanism again`,
    });
    // the store that saved them still holds them in memory: a save writes them again, whole
    expect((await s.saveTo(folder, [ia])).written).toEqual([ia]);
    expect((await reopen().locate(ia)).ok).toBe(true);
  });
});
