/**
 * House rule: the unit tests mirror the code. A test of src-worker/lp/pricing/pricing.ts is
 * test/unit/worker/lp/pricing/pricing.test.ts; each root (worker, shared, main, renderer) keeps
 * its tests in the folders of its sources, the house rules keep house/, and helpers that
 * are not tests live in support/ (or beside the one folder of tests that uses them).
 * Every folder and file name is kebab-case, so a reader finds a file's test by its name.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../../..');
const UNIT = join(ROOT, 'test/unit');

/** test/unit's top folders: one per source root, then the house rules and the shared helpers. */
const SOURCE_ROOTS: Record<string, string> = {
  worker: 'src-worker',
  shared: 'src-shared',
  main: 'src-main',
  renderer: 'src-renderer',
};
const OTHER_TOPS = ['house', 'support'];
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else out.push(relative(UNIT, p).split('\\').join('/'));
  }
  return out;
}

/**
 * What is wrong with the place or name of each file (paths relative to test/unit; empty when
 * all are well placed). sourceDirExists tells whether a source root has a given folder.
 */
function layoutProblems(paths: string[], sourceDirExists: (dir: string) => boolean): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const parts = p.split('/');
    const name = parts[parts.length - 1] ?? '';
    const folders = parts.slice(0, -1);
    const top = folders[0];
    if (top === undefined || !(top in SOURCE_ROOTS || OTHER_TOPS.includes(top))) {
      out.push(`${p}: outside test/unit/{${[...Object.keys(SOURCE_ROOTS), ...OTHER_TOPS].join(',')}}/`);
      continue;
    }
    const stem = name.replace(/(\.test)?\.ts$/, '');
    if (!name.endsWith('.ts') || !KEBAB.test(stem)) out.push(`${p}: file name is not kebab-case .ts`);
    const bad = folders.find((f) => !KEBAB.test(f));
    if (bad !== undefined) out.push(`${p}: folder ${bad} is not kebab-case`);
    const mirrored = folders.slice(1).join('/');
    if (top in SOURCE_ROOTS && mirrored !== '' && !sourceDirExists(`${SOURCE_ROOTS[top]}/${mirrored}`)) {
      out.push(`${p}: ${SOURCE_ROOTS[top]}/${mirrored}/ does not exist (the folder must mirror a source folder)`);
    }
  }
  return out;
}

const sourceDirExists = (dir: string): boolean => existsSync(join(ROOT, dir));

describe('unit tests mirror the code', () => {
  it('every file under test/unit sits in a root, house or support folder that mirrors the sources, named in kebab-case', () => {
    const all = files(UNIT);
    expect(all.filter((p) => p.endsWith('.test.ts')).length).toBeGreaterThan(100);
    expect(layoutProblems(all, sourceDirExists)).toEqual([]);
  });

  it('names each kind of misplaced or misnamed file', () => {
    const problems = layoutProblems(
      [
        'queue-codec.test.ts',
        'fast/phi-solve.test.ts',
        'worker/mechanism/planarLaplace.test.ts',
        'worker/noSuchFolder/x.test.ts',
        'worker/no-such-folder/x.test.ts',
        'renderer/lib/format.test.ts',
        'worker/engine-core.test.ts',
        'support/run-job.ts',
      ],
      sourceDirExists,
    );
    expect(problems).toEqual([
      'queue-codec.test.ts: outside test/unit/{worker,shared,main,renderer,house,support}/',
      'fast/phi-solve.test.ts: outside test/unit/{worker,shared,main,renderer,house,support}/',
      'worker/mechanism/planarLaplace.test.ts: file name is not kebab-case .ts',
      'worker/noSuchFolder/x.test.ts: folder noSuchFolder is not kebab-case',
      'worker/noSuchFolder/x.test.ts: src-worker/noSuchFolder/ does not exist (the folder must mirror a source folder)',
      'worker/no-such-folder/x.test.ts: src-worker/no-such-folder/ does not exist (the folder must mirror a source folder)',
    ]);
  });
});
