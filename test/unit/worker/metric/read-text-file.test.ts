/**
 * The engine's domain-file reader confined to a workspace root (web mode):
 * what was opened is checked, so a path swapped after the host's check reads
 * nothing outside. The swap is made inside the open call, deterministically.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { confineEngineReads, readRegularTextFile } from '../../../../src-worker/metric/read-text-file';

const SECRET = 'alice,hunter2\n';
let root: string;
let outside: string;
beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'engine-root-')));
  outside = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'engine-outside-')));
  fs.writeFileSync(join(outside, 'secret.csv'), SECRET);
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});
afterEach(() => confineEngineReads(null));

/** node:fs whose openSync first runs `before` (the swap between the reader's stat and its open). */
function swappingFs(before: () => void): Parameters<typeof readRegularTextFile>[3] {
  return {
    ...fs,
    openSync: (p: string, flags: number) => {
      before();
      return fs.openSync(p, flags);
    },
  } as unknown as Parameters<typeof readRegularTextFile>[3];
}

function refusal(f: () => unknown): MechError {
  try {
    f();
  } catch (e) {
    if (e instanceof MechError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('engine reads confined to the workspace root', () => {
  it('a regular file swapped for a link leading out between the stat and the open: unconfined it reads outside, confined nothing', () => {
    const f = join(root, 'edges.csv');
    const swapIn = (): void => {
      if (fs.lstatSync(f, { throwIfNoEntry: false })?.isSymbolicLink()) return;
      fs.rmSync(f, { force: true });
      fs.symlinkSync(join(outside, 'secret.csv'), f);
    };
    fs.writeFileSync(f, 'a,b\n');
    // the race as it was: the stat saw the file inside, the open followed the link out
    expect(readRegularTextFile(f, 'edge-list file', 1 << 20, swappingFs(swapIn))).toBe(SECRET);
    fs.rmSync(f);
    fs.writeFileSync(f, 'a,b\n');
    confineEngineReads(root);
    const e = refusal(() => readRegularTextFile(f, 'edge-list file', 1 << 20, swappingFs(swapIn)));
    expect(e.code).toBe('outside-workspace');
    expect(e.message).toBe(
      `edge-list file '${f}' became a symbolic link after it was checked (links are not followed when a workspace file is opened); nothing was read`,
    );
    fs.rmSync(f);
  });

  it('a folder swapped for a link leading out between the stat and the open is caught on the descriptor', () => {
    const sub = join(root, 'sub');
    fs.mkdirSync(sub);
    fs.writeFileSync(join(sub, 'secret.csv'), 'a,b\n');
    const f = join(sub, 'secret.csv');
    confineEngineReads(root);
    const e = refusal(() =>
      readRegularTextFile(
        f,
        'edge-list file',
        1 << 20,
        swappingFs(() => {
          fs.renameSync(sub, join(root, 'sub-old'));
          fs.symlinkSync(outside, sub);
        }),
      ),
    );
    expect(e.code).toBe('outside-workspace');
    expect(e.message).toBe(
      `edge-list file '${f}' lies outside the workspace folder ${root} (a link leads out, or was swapped in after the path was checked); nothing was read`,
    );
    fs.rmSync(sub);
    fs.rmSync(join(root, 'sub-old'), { recursive: true });
  });

  it('a hard link inside the root is refused; a file of one link reads', () => {
    const f = join(root, 'hard.csv');
    fs.linkSync(join(outside, 'secret.csv'), f);
    confineEngineReads(root);
    const e = refusal(() => readRegularTextFile(f, 'edge-list file'));
    expect(e.code).toBe('outside-workspace');
    expect(e.message).toBe(
      `edge-list file '${f}' has 2 hard links; in the workspace a file with more than one link is refused (another of its names may lie outside the workspace)`,
    );
    fs.rmSync(f);
    fs.writeFileSync(join(root, 'one.csv'), 'a,b\n');
    expect(readRegularTextFile(join(root, 'one.csv'), 'edge-list file')).toBe('a,b\n');
  });
});
