/**
 * Channels kept by the host (issue 15): an optimal LP's channel is kept by
 * the dispatcher (keepChannel -> channelRef), and measure, check and rows
 * requests name it instead of carrying the matrix through the page. The
 * numbers equal those of the same requests with the matrix inline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src-main/dispatcher/dispatcher';
import { ChannelStore } from '../../src-main/dispatcher/channel-store';
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
  let d: Dispatcher;
  beforeAll(() => {
    d = new Dispatcher({ threads: 1 });
  });
  afterAll(async () => {
    await d.close();
  });

  it('an optimal LP above the inline limit: no matrix sent back, a channelRef whose measure, check and rows equal the inline ones', async () => {
    const spec = { domain: 'grid:4x4', epsilon: 1, kind: 'optimal', loss: 'dist' };
    const kept = (await d.run({ type: 'mechanism', ...spec, inlineLimit: 100, keepChannel: true })) as MechanismResult;
    expect(kept.matrix).toBeUndefined();
    expect(kept.channelRef).toMatch(/^ch-[0-9a-f]{32}$/);
    const full = (await d.run({ type: 'mechanism', ...spec, inlineLimit: 1000 })) as MechanismResult;
    const matrix = full.matrix!;
    expect(full.channelRef).toBeUndefined();

    const byRef = (await d.run({ type: 'measure', channelRef: kept.channelRef, domain: spec.domain, epsilon: 1, loss: 'dist' })) as MeasureResult;
    const inline = (await d.run({ type: 'measure', channel: matrix, domain: spec.domain, epsilon: 1, loss: 'dist' })) as MeasureResult;
    expect(byRef.utility).toBe(inline.utility);
    expect(byRef.expectedLoss).toBe(inline.expectedLoss);
    expect(byRef.expectedLoss).toBeCloseTo(full.lp!.objective, 9);

    const check = (await d.run({ type: 'check', channelRef: kept.channelRef, domain: spec.domain, epsilon: 1 })) as CheckResult;
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

  it('within the inline limit the matrix comes back too; an unknown channelRef is one clear error', async () => {
    const r = (await d.run({ type: 'mechanism', domain: 'line:4', epsilon: 1, kind: 'optimal', keepChannel: true })) as MechanismResult;
    expect(r.matrix?.rows).toBe(4);
    expect(r.channelRef).toMatch(/^ch-/);
    await expect(d.run({ type: 'measure', channelRef: 'ch-0123456789abcdef0123456789abcdef' })).rejects.toSatisfy(
      (e: unknown) => e instanceof ApiError && e.code === 'invalid-input' && /no longer kept by the app/.test(e.message),
    );
    await expect(d.run({ type: 'measure', channelRef: 'nope' })).rejects.toBeInstanceOf(ApiError);
  }, 60_000);
});
