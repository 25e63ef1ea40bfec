/**
 * A project file that is not JSON: the message names the file, line and column in full. The redaction that keeps
 * file content out of messages (host/redact.ts) must not eat the message's own words when the file happens to
 * contain them ("this is not a project" once gave "… valid JSON").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectFromText, readProjectSafely } from '../../../../src-main/host/project-store';

const dir = mkdtempSync(join(tmpdir(), 'mechstudio-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a project that is not JSON', () => {
  it('opened by its path: the whole message, with "not" and the place', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, 'this is not a project\nsecond line\n');
    await expect(readProjectSafely(file)).rejects.toThrow(`${file}: not valid JSON at line 1, column 1`);
  });

  it('uploaded (named by its file name): the same words', async () => {
    await expect(projectFromText('{"name": "not valid, at all"\n', 'mine.json', dir)).rejects.toThrow(
      /^mine\.json: not valid JSON at line 2, column 1$/,
    );
  });
});
