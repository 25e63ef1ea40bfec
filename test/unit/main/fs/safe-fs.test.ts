/**
 * src-main/fs/safe-fs.ts: the one file-I/O boundary of the CLI, the project
 * runner and the web host. The sync and async variants run the same checks;
 * each case is asserted on both.
 */
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import {
  checkDirTarget,
  checkDirTargetAsync,
  checkRegularFile,
  checkWriteTarget,
  checkWriteTargetAsync,
  readRegularFile,
  readRegularFileSync,
  readRegularFileSyncStepped,
  REFUSE_SYSTEM_FS,
  TEMP_PREFIX,
  writeFileAtomic,
  writeFileAtomicAsync,
} from '../../../../src-main/fs/safe-fs';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'safe-fs-'));
  symlinkSync('/proc/self', join(dir, 'to-proc'));
  symlinkSync('/proc/self/status', join(dir, 'status-link'));
  symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(f: () => unknown): MechError {
  try {
    f();
  } catch (e) {
    return e as MechError;
  }
  throw new Error('did not throw');
}
async function asyncErrorOf(p: Promise<unknown>): Promise<MechError> {
  return p.then(
    () => {
      throw new Error('did not throw');
    },
    (e: MechError) => e,
  );
}

describe('safe-fs reads', () => {
  it('a file over its cap is too-large, sync and async; at the cap it reads', async () => {
    const f = join(dir, 'ten.txt');
    writeFileSync(f, '0123456789');
    expect(readRegularFileSync(f, 'f', 10)).toBe('0123456789');
    expect(await readRegularFile(f, 'f', 10)).toBe('0123456789');
    const e1 = errorOf(() => readRegularFileSync(f, 'f', 9));
    const e2 = await asyncErrorOf(readRegularFile(f, 'f', 9));
    for (const e of [e1, e2]) {
      expect(e.code).toBe('too-large');
      expect(e.message).toMatch(/^f '.*ten\.txt' is .*over the .* limit$/);
    }
  });

  it('a size-0 /proc file over the cap stops one byte past it (never reads on)', () => {
    expect(errorOf(() => readRegularFileSync('/proc/self/status', 'status', 16)).code).toBe('too-large');
  });

  it('with REFUSE_SYSTEM_FS, /proc and /sys are refused, also through a link; without it /proc/self/status reads', async () => {
    for (const p of ['/proc/self/status', join(dir, 'status-link'), '/sys/kernel/mm']) {
      const e = await asyncErrorOf(checkRegularFile(p, 'project', 1 << 20, REFUSE_SYSTEM_FS));
      expect(e.code, p).toBe('invalid-input');
      expect(e.message, p).toMatch(/is not a regular file \(files under \/proc and \/sys are refused\)/);
      expect((await asyncErrorOf(readRegularFile(p, 'project', 1 << 20, REFUSE_SYSTEM_FS))).code, p).toBe(
        'invalid-input',
      );
    }
    expect(await readRegularFile('/proc/self/status', 'status', 1 << 20)).toMatch(/^Name:/);
  });

  it('a directory and a device are named, sync and async', async () => {
    expect(errorOf(() => readRegularFileSync(dir, 'f')).message).toMatch(/is a directory, not a regular file/);
    expect((await asyncErrorOf(readRegularFile('/dev/zero', 'f'))).message).toMatch(
      /is a character device, not a regular file/,
    );
  });
});

describe('safe-fs reads confined to a workspace root', () => {
  const SECRET = 'alice,hunter2\n';
  let root: string;
  let outside: string;
  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'safe-fs-root-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'safe-fs-outside-')));
    writeFileSync(join(outside, 'secret.csv'), SECRET);
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const confined = (): { refuseSystemFs: true; confineTo: string } => ({ refuseSystemFs: true, confineTo: root });

  it('a regular file swapped for a link leading out, after the check and before the open, reads nothing (the open does not follow it)', () => {
    const f = join(root, 'edges.csv');
    writeFileSync(f, 'a,b\n');
    const swap = (op: string): void => {
      if (op !== 'openRead') return;
      unlinkSync(f);
      symlinkSync(join(outside, 'secret.csv'), f);
    };
    const e = errorOf(() => readRegularFileSyncStepped(f, 'data file', 1 << 20, confined(), swap));
    expect(e.code).toBe('outside-workspace');
    expect(e.message).toBe(
      `data file '${f}' became a symbolic link after it was checked (links are not followed when a workspace file is opened); nothing was read`,
    );
    unlinkSync(f);
  });

  it('a folder moved out of the root and linked back, after the check and before the open, is caught on the descriptor', () => {
    const sub = join(root, 'sub');
    mkdirSync(sub);
    const f = join(sub, 'moved.csv');
    writeFileSync(f, 'a,b\n');
    // the same inode, now outside: only the descriptor's real path tells
    const swap = (op: string): void => {
      if (op !== 'openRead') return;
      renameSync(sub, join(outside, 'sub'));
      symlinkSync(join(outside, 'sub'), sub);
    };
    const e = errorOf(() => readRegularFileSyncStepped(f, 'data file', 1 << 20, confined(), swap));
    expect(e.code).toBe('outside-workspace');
    expect(e.message).toBe(
      `data file '${f}' lies outside the workspace folder ${root} (a link leads out, or was swapped in after the path was checked); nothing was read`,
    );
    unlinkSync(sub);
  });

  it('a link leading out when the read starts is refused, sync and async; unconfined it reads (the CLI follows links)', async () => {
    const f = join(root, 'link.csv');
    symlinkSync(join(outside, 'secret.csv'), f);
    const want = `data file '${f}' lies outside the workspace folder ${root} (a link leads out, or was swapped in after the path was checked); nothing was read`;
    for (const e of [
      errorOf(() => readRegularFileSync(f, 'data file', 1 << 20, confined())),
      await asyncErrorOf(readRegularFile(f, 'data file', 1 << 20, confined())),
    ]) {
      expect(e.code).toBe('outside-workspace');
      expect(e.message).toBe(want);
    }
    expect((await asyncErrorOf(checkRegularFile(f, 'data file', 1 << 20, confined()))).message).toBe(want);
    expect(readRegularFileSync(f, 'data file', 1 << 20, REFUSE_SYSTEM_FS)).toBe(SECRET);
    unlinkSync(f);
  });

  it('a hard link inside the root to a file outside it is refused (any file with more than one link), sync and async', async () => {
    const f = join(root, 'hard.csv');
    linkSync(join(outside, 'secret.csv'), f);
    const want = `data file '${f}' has 2 hard links; in the workspace a file with more than one link is refused (another of its names may lie outside the workspace)`;
    for (const e of [
      errorOf(() => readRegularFileSync(f, 'data file', 1 << 20, confined())),
      await asyncErrorOf(readRegularFile(f, 'data file', 1 << 20, confined())),
      await asyncErrorOf(checkRegularFile(f, 'data file', 1 << 20, confined())),
    ]) {
      expect(e.code).toBe('outside-workspace');
      expect(e.message).toBe(want);
    }
    unlinkSync(f);
    // a file of one link inside the root reads
    writeFileSync(join(root, 'ok.csv'), 'a,b\n');
    expect(await readRegularFile(join(root, 'ok.csv'), 'data file', 1 << 20, confined())).toBe('a,b\n');
  });
});

describe('safe-fs writes', () => {
  it('refuses a folder that links into /proc, and a file that links into /proc, sync and async', async () => {
    const viaDir = join(dir, 'to-proc', 'x.json');
    expect(errorOf(() => writeFileAtomic(viaDir, 'x')).message).toMatch(
      /leads under \/proc, a system pseudo file system/,
    );
    expect((await asyncErrorOf(writeFileAtomicAsync(viaDir, 'x'))).message).toMatch(/leads under \/proc/);
    expect((await asyncErrorOf(checkWriteTargetAsync(viaDir))).message).toMatch(/leads under \/proc/);
    expect(errorOf(() => checkDirTarget(join(dir, 'to-proc', 'new'))).message).toMatch(/leads under \/proc/);
    expect((await asyncErrorOf(checkDirTargetAsync(join(dir, 'to-proc')))).message).toMatch(/leads under \/proc/);
    const link = join(dir, 'status-link');
    expect(errorOf(() => checkWriteTarget(link)).message).toMatch(/links under \/proc/);
    expect((await asyncErrorOf(checkWriteTargetAsync(link))).message).toMatch(/links under \/proc/);
  });

  it('refuses a dangling link and a folder at the target', async () => {
    expect(errorOf(() => checkWriteTarget(join(dir, 'dangling'))).message).toMatch(/dangling symbolic link/);
    expect((await asyncErrorOf(writeFileAtomicAsync(join(dir, 'dangling'), 'x'))).message).toMatch(
      /dangling symbolic link/,
    );
    expect((await asyncErrorOf(writeFileAtomicAsync(dir, 'x'))).message).toMatch(
      /it is a directory; only a regular file is ever replaced/,
    );
  });

  it('the async writer creates folders, replaces a regular file, and sweeps a dead process temp file', async () => {
    const d = join(dir, 'a', 'b');
    const target = join(d, 'p.json');
    expect(await writeFileAtomicAsync(target, 'one')).toBe(target);
    // pid 2^31-2 is not alive; its leftover temp file goes on the next first write into the folder
    const stale = join(dir, 'sweep');
    mkdirSync(stale);
    writeFileSync(join(stale, `${TEMP_PREFIX}2147483646-abc-1-q.json`), 'left');
    await writeFileAtomicAsync(join(stale, 'q.json'), 'two');
    expect(readdirSync(stale)).toEqual(['q.json']);
    await writeFileAtomicAsync(target, 'three');
    expect(readFileSync(target, 'utf8')).toBe('three');
    expect(readdirSync(d)).toEqual(['p.json']);
  });
});
