import { expect } from 'vitest';
import { MechError, type MechErrorCode } from '../../../src-shared/errors';

/**
 * Run fn and return the MechError it throws. Fails the test when fn returns, or throws anything
 * but a MechError; when code (and message) are given, also when the error's code differs (or its
 * message does not match). `what` names the case in the failure message.
 */
export function mechError(
  fn: () => unknown,
  code?: MechErrorCode,
  message?: RegExp,
  what = 'expected a MechError',
): MechError {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, what).toBeInstanceOf(MechError);
  const e = thrown as MechError;
  if (code !== undefined) expect(e.code, what).toBe(code);
  if (message !== undefined) expect(e.message, what).toMatch(message);
  return e;
}
