/**
 * One list of error codes (src-shared/protocol/errors.ts): the schema, the engine's MechError, the CLI's exit status
 * and toJobError all follow it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorCodeSchema, isInputErrorCode, toJobError } from '../../../../src-shared/protocol';
import { MechError } from '../../../../src-shared/errors';
import { exitCodeFor } from '../../../../src-main/cli/main';
import { toJobError as hostToJobError } from '../../../../src-main/host/api-host';

describe('error codes', () => {
  it('the schema accepts exactly the listed codes', () => {
    expect(errorCodeSchema.options).toEqual(ERROR_CODES);
    expect(ERROR_CODES).toEqual([
      'invalid-input',
      'not-a-metric',
      'too-large',
      'not-applicable',
      'outside-workspace',
      'queue-unreachable',
      'infeasible',
      'cancelled',
      'internal',
      'crashed',
    ]);
    expect(errorCodeSchema.safeParse('bogus').success).toBe(false);
  });

  it('the CLI exits 2 on input errors, 130 on cancel, 1 otherwise', () => {
    const exits = Object.fromEntries(ERROR_CODES.map((c) => [c, exitCodeFor(c)]));
    expect(exits).toEqual({
      'invalid-input': 2,
      'not-a-metric': 2,
      'too-large': 2,
      'not-applicable': 2,
      'outside-workspace': 2,
      'queue-unreachable': 1,
      infeasible: 1,
      cancelled: 130,
      internal: 1,
      crashed: 1,
    });
    expect(exitCodeFor('ENOENT')).toBe(1);
    expect(isInputErrorCode('toString')).toBe(false);
  });

  it('toJobError keeps typed errors, maps allocation failures to too-large and anything else to internal', () => {
    const detail = { row: 1, col: 2, nested: { a: [1, 2] } };
    const e = toJobError(new MechError('not-a-metric', 'triangle fails', detail));
    expect(e).toEqual({ code: 'not-a-metric', message: 'triangle fails', detail });
    expect(e.detail).not.toBe(detail); // a plain copy: safe to post across a thread
    expect(toJobError({ code: 'crashed', message: 'worker died' })).toEqual({
      code: 'crashed',
      message: 'worker died',
    });
    expect(toJobError(new RangeError('Array buffer allocation failed'))).toEqual({
      code: 'too-large',
      message: 'out of memory: Array buffer allocation failed',
    });
    expect(toJobError(new RangeError('Invalid array length'))).toEqual({
      code: 'internal',
      message: 'internal error: Invalid array length',
    });
    expect(toJobError(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toEqual({
      code: 'internal',
      message: 'internal error: no such file',
    });
    expect(toJobError('boom')).toEqual({ code: 'internal', message: 'internal error: boom' });
    expect(toJobError(new Error('internal error: twice'))).toEqual({
      code: 'internal',
      message: 'internal error: twice',
    });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(toJobError(new MechError('invalid-input', 'x', circular))).toEqual({ code: 'invalid-input', message: 'x' });
  });

  it('docs/protocol.md lists every code with its CLI exit status', () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/protocol.md'), 'utf8');
    for (const code of ERROR_CODES) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${code}\` |`));
      expect(row, code).toBeDefined();
      expect(row!.trim().endsWith(`| ${exitCodeFor(code)} |`), row).toBe(true);
    }
  });

  it('the web host uses the same conversion', () => {
    expect(hostToJobError).toBe(toJobError);
  });
});
