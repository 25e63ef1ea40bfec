/**
 * The queue pricing's pieces that need no Redis: the binary frames
 * (pricing-wire.ts: doubles bit for bit, malformed frames refused with a
 * message), the slices of outputs (pricing-slices.ts slicesOf), and the
 * engine reached over a MessagePort (lp/pricing/pricing-port.ts: the same optimum
 * and bound as the engine on the LP's own thread).
 */
import { describe, expect, it } from 'vitest';
import { MessageChannel } from 'node:worker_threads';
import {
  decodeFrame,
  encodeFrame,
  frameRows,
  need,
  pricingKey,
  readRegistration,
  signedRegistration,
} from '../../../../src-main/queue/pricing-wire';
import { silentAfterMs, slicesOf } from '../../../../src-main/queue/pricing-slices';
import { openPricing } from '../../../../src-worker/lp/pricing/pricing-pool';
import { portPricing, servePricing } from '../../../../src-worker/lp/pricing/pricing-port';
import { optimalMechanism } from '../../../../src-worker/lp/optimal/optimal-mechanism';
import { parseDomainSpec } from '../../../../src-worker/metric/parse-domain-spec';

describe('pricing frames', () => {
  it('carry doubles bit for bit, integers and bytes, and the header', () => {
    const x = new Float64Array([1 / 3, -0, 5e-324, -1.7976931348623157e308, Math.PI]);
    const f = decodeFrame(
      encodeFrame(
        { t: 'price', round: 7 },
        { lam: x.subarray(1), from: new Int32Array([3, -4]), only: new Uint8Array([1, 0, 1]) },
      ),
    );
    expect(f.head).toEqual({ t: 'price', round: 7 });
    const lam = need(f, 'lam', 'f64', 4);
    expect([...lam].map((v, i) => Object.is(v, x[i + 1]))).toEqual([true, true, true, true]);
    expect([...need(f, 'from', 'i32', 2)]).toEqual([3, -4]);
    expect([...need(f, 'only', 'u8', null)]).toEqual([1, 0, 1]);
  });

  it('refuse what does not add up, with a message', () => {
    const good = encodeFrame(
      { t: 'add' },
      { from: new Int32Array([0]), to: new Int32Array([1]), factor: new Float64Array([2]) },
    );
    expect(() => decodeFrame(Buffer.from('XXXX0000'))).toThrow(/does not start with MSP2/);
    expect(() => decodeFrame(good.subarray(0, good.length - 3))).toThrow(/array factor runs past the end/);
    expect(() => decodeFrame(Buffer.concat([good, Buffer.alloc(2)]))).toThrow(/2 bytes left after the arrays/);
    expect(() => need(decodeFrame(good), 'factor', 'f64', 2)).toThrow(/lacks factor \(f64 x 2\)/);
    expect(frameRows(decodeFrame(good), 2).factor[0]).toBe(2);
    expect(() => frameRows(decodeFrame(good), 1)).toThrow(/bad row 0: 0 <= 2 \* 1 \(n = 1\)/);
  });
});

describe('slices of outputs', () => {
  const ranges = (s: ReturnType<typeof slicesOf>): number[][] => s.map((x) => [x.w0, x.w1, x.g0, x.g1, x.groupSize]);
  it('runs of whole groups when there are enough groups', () => {
    expect(ranges(slicesOf(10, 2, 3))).toEqual([
      [0, 2, 0, 1, 2],
      [2, 6, 1, 3, 2],
      [6, 10, 3, 5, 2],
    ]);
  });
  it('pieces of groups when there are fewer groups than workers', () => {
    expect(ranges(slicesOf(10, 10, 3))).toEqual([
      [0, 3, 0, 1, 3],
      [3, 6, 0, 1, 3],
      [6, 10, 0, 1, 4],
    ]);
    expect(ranges(slicesOf(7, 4, 3))).toEqual([
      [0, 2, 0, 1, 2],
      [2, 4, 0, 1, 2],
      [4, 7, 1, 2, 3],
    ]);
    expect(ranges(slicesOf(3, 3, 8))).toEqual([
      [0, 1, 0, 1, 1],
      [1, 2, 0, 1, 1],
      [2, 3, 0, 1, 1],
    ]);
  });
});

describe('pricing over a MessagePort', () => {
  it('gives the optimum and bound of pricing on the LP thread', async () => {
    const domain = parseDomainSpec('grid:4x4');
    const w = Array.from({ length: 16 }, (_, i) => 1 + ((i * 7) % 5));
    const total = w.reduce((a, b) => a + b, 0);
    const prior = Float64Array.from(w, (x) => x / total);
    const solve = (decompositionOptions: object): ReturnType<typeof optimalMechanism> =>
      optimalMechanism(domain, 0.7, prior, 'dist', { model: 'auto', coarseStart: false, decompositionOptions });
    const { port1, port2 } = new MessageChannel();
    let opened = 0;
    servePricing(port1, (threads, spec) => (opened++, openPricing(threads, spec)));
    try {
      const viaPort = await solve({ pricing: portPricing(port2) });
      const here = await solve({});
      expect(opened).toBe(1);
      expect(viaPort.lp!.method).toBe('decomposition');
      expect(viaPort.lp!.objective).toBe(here.lp!.objective);
      expect(viaPort.lp!.lowerBound).toBe(here.lp!.lowerBound);
      expect(viaPort.lp!.rounds).toBe(here.lp!.rounds);
    } finally {
      port1.close();
    }
  }, 60_000);
});

describe('signed pricing frames and registrations', () => {
  const key = Buffer.from('a-queue-secret-for-the-tests-0123456789');
  const other = Buffer.from('another-queue-secret-0123456789abcdef');
  it('a signed frame reads back with its key and is refused without it, with another key, or changed by one byte', () => {
    const frame = encodeFrame({ t: 'priced', round: 3 }, { r: new Float64Array([0.25, 1]) }, key);
    expect(frame.subarray(0, 4).toString()).toBe('MSS2');
    expect(decodeFrame(frame, key).head).toEqual({ t: 'priced', round: 3 });
    expect(() => decodeFrame(frame)).toThrow(/it is signed but this side has no queue secret/);
    expect(() => decodeFrame(frame, other)).toThrow(/its signature does not match this queue's secret/);
    const changed = Buffer.from(frame);
    changed[20] = changed[20]! ^ 1;
    expect(() => decodeFrame(changed, key)).toThrow(/its signature does not match/);
    expect(() => decodeFrame(encodeFrame({ t: 'priced' }), key)).toThrow(/it is not signed with this queue's secret/);
  });

  it("a registration is believed only when signed with the master's key", () => {
    const reg = { id: 'w1', version: '1/pricing-2', threads: 2, host: 'box', pid: 7 };
    expect(readRegistration(signedRegistration(reg, key), key)).toEqual(reg);
    expect(readRegistration(signedRegistration(reg, undefined), undefined)).toEqual(reg);
    expect(readRegistration(signedRegistration(reg, undefined), key)).toBe(
      "its registration is not signed with this queue's secret",
    );
    expect(readRegistration(signedRegistration(reg, other), key)).toBe(
      "its registration is not signed with this queue's secret",
    );
    const forged = JSON.parse(signedRegistration(reg, key)) as Record<string, unknown>;
    expect(readRegistration(JSON.stringify({ ...forged, threads: 4096 }), key)).toBe(
      "its registration is not signed with this queue's secret",
    );
    expect(readRegistration('{', key)).toBe('its registration is not JSON');
  });

  it('the secret comes from the environment or a file, and a short one is refused', () => {
    expect(pricingKey({})).toBeUndefined();
    expect(pricingKey({ MECHSTUDIO_QUEUE_SECRET: 'x'.repeat(16) })!.toString()).toBe('x'.repeat(16));
    expect(() => pricingKey({ MECHSTUDIO_QUEUE_SECRET: 'short' })).toThrow(
      'the queue secret must be at least 16 characters (it has 5)',
    );
    expect(() => pricingKey({ MECHSTUDIO_QUEUE_SECRET_FILE: '/nonexistent-mechstudio-dir/secret' })).toThrow(
      /cannot read \/nonexistent-mechstudio-dir\/secret \(ENOENT\)/,
    );
  });
});

describe('a silent worker', () => {
  it('counts as silent after 20 times the slowest reply, at least 10 s, at most a quarter of the time limit (at least 2 s)', () => {
    expect(silentAfterMs(0, Infinity)).toBe(600_000);
    expect(silentAfterMs(100, Infinity)).toBe(10_000);
    expect(silentAfterMs(2000, Infinity)).toBe(40_000);
    expect(silentAfterMs(2000, 40_000)).toBe(10_000);
    expect(silentAfterMs(0, 4000)).toBe(2000);
  });
});
