/**
 * What a read confined to a folder (web mode's workspace root) checks on the
 * descriptor it opened, AFTER the open: a path checked first and opened later
 * can be swapped in between (a regular file for a link leading out, a folder
 * for a link to another folder), so the check is made on what was opened.
 *
 *  - the open does not follow a link at the last name (O_NOFOLLOW): a link
 *    there is refused (ELOOP);
 *  - the descriptor's real path (readlink of /proc/self/fd/N; where there is
 *    no /proc, the real path of the name compared with the descriptor by
 *    device and inode) must lie under the root and pass through no hidden
 *    name: a folder swapped for a link on the way is caught here;
 *  - the file must have one link (st_nlink = 1): a hard link made inside the
 *    root to a file outside it is the outside file itself, and no path check
 *    can tell which of its names is the real one.
 *
 * Plain string work on POSIX paths: no node:path, so the engine's reader uses
 * it too (src-worker/metric/read-text-file.ts).
 */
import { MechError } from '../../src-shared/errors';

/** The refusal of a confined read: one 'outside-workspace' line naming the file as asked for. */
export function confinedRefusal(what: string, file: string, why: string): MechError {
  return new MechError('outside-workspace', `${what} '${file.slice(0, 300)}' ${why}`);
}

/**
 * Why a descriptor whose real path is `real`, with `nlink` links, may not be read under `root` (a real path); null when
 * it may.
 */
export function confinedProblem(root: string, real: string, nlink: number): string | null {
  const base = root.endsWith('/') ? root : `${root}/`;
  if (real !== root && !real.startsWith(base))
    return `lies outside the workspace folder ${root} (a link leads out, or was swapped in after the path was checked); nothing was read`;
  const names = real === root ? [] : real.slice(base.length).split('/');
  if (names.some((n) => n.startsWith('.')))
    return 'leads through a hidden file or folder (a name starting with "."); nothing was read';
  if (nlink > 1)
    return `has ${nlink} hard links; in the workspace a file with more than one link is refused (another of its names may lie outside the workspace)`;
  return null;
}

/** The message for an open refused because the last name is a symbolic link (ELOOP under O_NOFOLLOW). */
export const LINK_AT_OPEN =
  'became a symbolic link after it was checked (links are not followed when a workspace file is opened); nothing was read';

/** Where the descriptor's real path can be read (Linux; elsewhere null and the caller compares inodes). */
export function descriptorLink(fd: number): string {
  return `/proc/self/fd/${fd}`;
}
