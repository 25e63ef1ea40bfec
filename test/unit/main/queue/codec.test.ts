/**
 * The queue's wire format and URL handling (src-main/queue/codec.ts,
 * connection.ts): non-finite numbers and -0 survive Redis' JSON exactly,
 * replies are validated when they come back, failures carry their code, and
 * no message ever contains the Redis password.
 */
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import {
  decodeReturn,
  decodeValue,
  encodeReturn,
  encodeValue,
  failureText,
  fileDomains,
  MAX_CARRIED_FILE_BYTES,
  MAX_QUEUE_REQUEST_BYTES,
  parseFailure,
  payloadTooLarge,
  requestTooLarge,
} from '../../../../src-main/queue/codec';
import { parseQueueUrl, queueUrlFrom, redact, stallSettings } from '../../../../src-main/queue/connection';
import { MechError } from '../../../../src-shared/errors';
import type { WorkerReply } from '../../../../src-shared/protocol/messages';
import { mechError } from '../../support/mech-error';

describe('queue codec', () => {
  it('keeps Infinity, -Infinity, NaN and -0 that plain JSON loses', () => {
    const v = {
      a: Infinity,
      b: -Infinity,
      c: NaN,
      d: -0,
      e: [1.5, 1e-300, -0, 0, Number.MAX_VALUE, 5e-324],
      s: 'x',
      n: null,
      nested: { deep: [NaN] },
    };
    const back = decodeValue(encodeValue(v)) as typeof v;
    expect(Object.is(back.a, Infinity)).toBe(true);
    expect(Object.is(back.b, -Infinity)).toBe(true);
    expect(Number.isNaN(back.c)).toBe(true);
    expect(Object.is(back.d, -0)).toBe(true);
    expect(back.e.map((x) => (Object.is(x, -0) ? '-0' : x))).toEqual([1.5, 1e-300, '-0', 0, Number.MAX_VALUE, 5e-324]);
    expect(back.s).toBe('x');
    expect(back.n).toBeNull();
    expect(Number.isNaN(back.nested.deep[0])).toBe(true);
    // what BullMQ's own JSON would have done
    const plain = JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
    expect(plain.a).toBeNull();
    expect(Object.is(plain.d, -0)).toBe(false);
  });

  it('a check reply with an infinite effective eps comes back equal and validated', () => {
    const reply: WorkerReply = {
      ok: true,
      result: {
        type: 'check',
        private: false,
        epsilon: 0.5,
        effectiveEpsilon: Infinity,
        violations: [{ x: '0', xp: '1', y: '2', ratio: Infinity }],
      } as unknown as Extract<WorkerReply, { ok: true }>['result'],
    };
    const back = decodeReturn(encodeReturn(reply));
    if ('error' in back) {
      // the record above must match the result schema; if it does not, say why
      throw new Error(back.error.message);
    }
    expect(back.reply).toEqual(reply);
    expect(back.csv).toBeUndefined();
  });

  it('carries channel CSV bytes gzipped and exactly', () => {
    const csv = Buffer.from(
      'x,0,1\n0,0.6666666666666666,0.3333333333333333\n1,0.3333333333333333,0.6666666666666666\n',
    );
    const reply: WorkerReply = { ok: false, error: { code: 'infeasible', message: 'no' } };
    const back = decodeReturn(encodeReturn(reply, csv));
    expect('error' in back).toBe(false);
    if (!('error' in back)) expect(back.csv!.equals(csv)).toBe(true);
  });

  it('refuses malformed return values with one internal error', () => {
    for (const v of [
      42,
      null,
      '{',
      JSON.stringify({ v: 2, reply: {} }),
      JSON.stringify({ v: 1, reply: { ok: true, result: { type: 'nope' } } }),
      JSON.stringify({ v: 1, reply: { ok: true, result: { type: 'check' } }, csv: 'x' }),
      JSON.stringify({
        v: 1,
        reply: { ok: false, error: { code: 'internal', message: 'm' } },
        csv: gzipSync('a').toString('base64').slice(0, 5),
      }),
    ]) {
      const r = decodeReturn(v);
      expect('error' in r).toBe(true);
      if ('error' in r) {
        expect(r.error.code).toBe('internal');
        expect(r.error.message).toMatch(/^a queue worker sent a malformed reply/);
      }
    }
  });

  it('failure reasons keep their code; BullMQ reasons map to crashed or internal', () => {
    expect(parseFailure(failureText({ code: 'invalid-input', message: 'epsilon must be > 0\nsecond line' }))).toEqual({
      code: 'invalid-input',
      message: 'epsilon must be > 0\nsecond line',
    });
    expect(parseFailure(failureText({ code: 'cancelled', message: 'job cancelled' })).code).toBe('cancelled');
    expect(parseFailure('job stalled more than allowable limit').code).toBe('crashed');
    expect(parseFailure('[made-up] x').code).toBe('internal');
    expect(parseFailure(undefined).code).toBe('internal');
  });
});

describe('queued requests carry their data', () => {
  it('finds graph:FILE / csv:FILE domains at any depth, and nothing else', () => {
    expect(fileDomains({ type: 'mechanism', domain: 'graph:/etc/edges.txt', epsilon: 1, kind: 'tg' })).toEqual([
      'graph:/etc/edges.txt',
    ]);
    expect(
      fileDomains({
        type: 'check',
        domain: 'line:3',
        epsilon: 1,
        mechanism: { domain: ' CSV:/x/d.csv ', epsilon: 1, kind: 'tg' },
      }),
    ).toEqual(['CSV:/x/d.csv']);
    expect(
      fileDomains({
        type: 'run-project',
        project: {
          domains: [
            { id: 'a', domain: 'line:3' },
            { id: 'b', domain: 'csv:rel.csv' },
          ],
        },
      }),
    ).toEqual(['csv:rel.csv']);
    expect(
      fileDomains({ type: 'mechanism', domain: 'grid:3x3:metric=manhattan', epsilon: 1, kind: 'tg', prior: 'uniform' }),
    ).toEqual([]);
    expect(fileDomains({ type: 'mechanism', domain: { kind: 'graph', labels: ['a'], edges: [] } })).toEqual([]);
    expect(fileDomains({ type: 'case-study', study: 'x', params: { trace: 'csv:/etc/passwd' } })).toEqual([]); // params are numbers by then; the engine reads no file for them
  });
});

describe('queue URL', () => {
  it('parses host, port, database and credentials; the redacted form hides them', () => {
    const t = parseQueueUrl('redis://alice:p%40ss-word@db.example:6380/4');
    expect(t.options).toMatchObject({
      host: 'db.example',
      port: 6380,
      db: 4,
      username: 'alice',
      password: 'p@ss-word',
    });
    expect(t.redacted).toBe('redis://***@db.example:6380/4');
    expect(redact(t, 'AUTH alice p@ss-word failed for redis://alice:p%40ss-word@db.example:6380/4')).not.toMatch(
      /alice|p@ss|p%40ss/,
    );
    const d = parseQueueUrl('redis://127.0.0.1');
    expect(d.options).toEqual({ host: '127.0.0.1', port: 6379, db: 0 });
    expect(d.redacted).toBe('redis://127.0.0.1:6379/0');
    expect(parseQueueUrl('rediss://:pw-pw@h:1/0').options.tls).toEqual({ servername: 'h' });
    expect(parseQueueUrl('redis://[::1]:7000').options).toMatchObject({ host: '::1', port: 7000 });
  });

  it('refuses what is not a Redis URL as bad input, never echoing a password', () => {
    for (const bad of [
      '',
      'not a url s3cretpw',
      'http://u:s3cretpw@h:1',
      'redis://u:s3cretpw@h:1/x',
      'redis://u:s3cretpw@h:1/0?x=1',
      'redis://u:s3cretpw@h:99999',
    ]) {
      expect(mechError(() => parseQueueUrl(bad), 'invalid-input', undefined, bad).message).not.toMatch(/s3cretpw/);
    }
  });

  it('takes the URL from the flag, else MECHSTUDIO_QUEUE, else (workers) REDIS_URL', () => {
    expect(queueUrlFrom('redis://a', { MECHSTUDIO_QUEUE: 'redis://b', REDIS_URL: 'redis://c' }, true)).toBe(
      'redis://a',
    );
    expect(queueUrlFrom(undefined, { MECHSTUDIO_QUEUE: 'redis://b', REDIS_URL: 'redis://c' }, true)).toBe('redis://b');
    expect(queueUrlFrom(undefined, { REDIS_URL: 'redis://c' }, true)).toBe('redis://c');
    // a generic REDIS_URL never moves `run` off the local pool
    expect(queueUrlFrom(undefined, { REDIS_URL: 'redis://c' }, false)).toBeNull();
    expect(queueUrlFrom(undefined, {}, true)).toBeNull();
  });

  it('stalled-job timing: defaults, overrides, refusals', () => {
    expect(stallSettings({})).toEqual({ lockMs: 30_000, stalledMs: 15_000, maxStalled: 2 });
    expect(stallSettings({ MECHSTUDIO_QUEUE_LOCK_MS: '2000', MECHSTUDIO_QUEUE_STALLED_MS: '1000' })).toEqual({
      lockMs: 2000,
      stalledMs: 1000,
      maxStalled: 2,
    });
    expect(stallSettings({ MECHSTUDIO_QUEUE_LOCK_MS: '4000' }).stalledMs).toBe(4000);
    expect(() => stallSettings({ MECHSTUDIO_QUEUE_LOCK_MS: '10' })).toThrow(
      /MECHSTUDIO_QUEUE_LOCK_MS must be an integer from 1000/,
    );
    expect(() => stallSettings({ MECHSTUDIO_QUEUE_MAX_STALLED: 'x' })).toThrow(MechError);
  });

  it('payload caps: exactly at the cap passes, one UTF-8 byte over is refused (at submit and off the queue), before any parse', () => {
    const max = MAX_QUEUE_REQUEST_BYTES;
    expect(requestTooLarge('x'.repeat(max))).toBeNull();
    expect(requestTooLarge('x'.repeat(max + 1))).toMatchObject({
      code: 'too-large',
      message: expect.stringMatching(/^this job's request is 128 MiB, over the 128 MiB/),
    });
    // counted in bytes, not characters: 2-byte characters over the cap with half as many characters
    expect(requestTooLarge('é'.repeat(max / 2))).toBeNull();
    expect(requestTooLarge(`${'é'.repeat(max / 2)}x`)?.code).toBe('too-large');
    expect(requestTooLarge('€'.repeat(max / 3 + 1))?.code).toBe('too-large');
    expect(requestTooLarge('x'.repeat(1000), 999)).toMatchObject({
      message: expect.stringMatching(/^this job's request is 0\.0 MiB, over the 0\.0 MiB/),
    });
    // off the queue: not JSON-parsed at all (the text is not JSON), only measured
    expect(payloadTooLarge({ v: 1, request: `{${'x'.repeat(max)}` })).toMatchObject({ code: 'too-large' });
    expect(payloadTooLarge({ v: 1, request: 'x'.repeat(max) })).toBeNull();
    const third = Math.ceil(MAX_CARRIED_FILE_BYTES / 3);
    expect(
      payloadTooLarge({
        v: 1,
        request: '{}',
        files: { a: 'x'.repeat(third), b: 'x'.repeat(third), c: 'x'.repeat(third) },
      }),
    ).toMatchObject({
      code: 'too-large',
      message: expect.stringMatching(/files are over 64 MiB together/),
    });
    expect(payloadTooLarge({ v: 1, request: '{}', files: { a: 'x'.repeat(MAX_CARRIED_FILE_BYTES) } })).toBeNull();
    // not job data: left to the envelope check
    for (const junk of [null, 7, 'text', [], { request: 5 }, { files: 'x' }]) expect(payloadTooLarge(junk)).toBeNull();
  });
});
