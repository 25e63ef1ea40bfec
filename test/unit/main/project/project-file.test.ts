/**
 * The app and the CLI write project files of the current version: a project of an earlier version (an old autosave,
 * a file the CLI's apply appends a release to) is written in the shape its migration makes, never as it came.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProject, saveProject } from '../../../../src-main/project/project-file';
import { writeProjectSafely } from '../../../../src-main/host/project-store';
import { currentVersionOf, type ProjectInput } from '../../../../src-shared/protocol/index';
import { mechanismOnLine } from '../../support/construction-facts';

const dir = mkdtempSync(join(tmpdir(), 'ms-project-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mechanism = mechanismOnLine('exponential', 4, 1, 0.4);
const items = {
  name: 'p',
  domains: [{ id: 'd', domain: 'line:4' }],
  mechanisms: [{ id: 'm', domain: 'd', kind: 'exponential', epsilon: 1 }],
};
/** A version 1 project whose kept result has the flat info, as a client may still hold it. */
const v1 = {
  version: 1,
  ...items,
  results: { m: { hash: '0123456789abcdef', result: { ...mechanism, info: { kernelRate: 0.5 } } } },
} as unknown as ProjectInput;
const v2 = {
  version: 2,
  ...items,
  results: {
    m: { hash: '0123456789abcdef', result: { ...mechanism, facts: { kind: 'exponential', kernelRate: 0.5 } } },
  },
};

describe('project files are written in the current version', () => {
  it('a version 1 project is the version 2 file of its migration', () => {
    expect(currentVersionOf(v1)).toEqual(v2);
    expect(currentVersionOf(v2)).toEqual(v2);
  });

  it("the CLI's and the app's writers write version 2", async () => {
    const cli = join(dir, 'cli.json');
    saveProject(cli, v1);
    expect(JSON.parse(readFileSync(cli, 'utf8'))).toEqual(v2);
    const app = join(dir, 'app.json');
    await writeProjectSafely(app, v1);
    expect(JSON.parse(readFileSync(app, 'utf8'))).toEqual(v2);
    expect(loadProject(app)).toEqual(loadProject(cli));
  });
});
