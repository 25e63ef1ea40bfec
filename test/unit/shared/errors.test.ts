/** messageOf: the one way a thrown value becomes the text shown or recorded. */
import { describe, expect, it } from 'vitest';
import { MechError, messageOf } from '../../../src-shared/errors';
import { ApiError } from '../../../src-shared/protocol/index';

describe('messageOf', () => {
  it("is an Error's message, subclasses included", () => {
    expect(messageOf(new Error('disk full'))).toBe('disk full');
    expect(messageOf(new MechError('invalid-input', 'epsilon must be > 0'))).toBe('epsilon must be > 0');
    expect(messageOf(new ApiError({ code: 'too-large', message: 'too many rows' }))).toBe('too many rows');
  });

  it('is the message of an error-shaped object (an ApiError after the Electron context bridge)', () => {
    expect(messageOf({ name: 'ApiError', code: 'invalid-input', message: 'no such file' })).toBe('no such file');
  });

  it('is the text of anything else', () => {
    expect(messageOf('plain text')).toBe('plain text');
    expect(messageOf(42)).toBe('42');
    expect(messageOf(null)).toBe('null');
    expect(messageOf(undefined)).toBe('undefined');
    expect(messageOf({ message: 7 })).toBe('[object Object]');
  });
});
