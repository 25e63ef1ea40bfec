/**
 * How every file boundary (src-main/fs/safe-fs.ts, the engine's domain-file
 * reader, the channel-CSV writer) names what a path is and why a system call
 * failed: one wording, no dependency on node:fs (the worker may run where
 * there is none).
 */
import { messageOf } from '../../src-shared/errors';

/** The parts of a Stats object the wording needs. */
export interface StatKind {
  isFile(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isSymbolicLink?(): boolean;
}

/** 'a directory', 'a FIFO (named pipe)', 'a character device', ... */
export function fileKind(st: StatKind): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSymbolicLink?.()) return 'a symbolic link';
  if (st.isFile()) return 'a regular file';
  return 'not a regular file';
}

/**
 * A short reason for a failed system call ('no such file', 'permission denied', 'input/output error (EIO)'); never file
 * content.
 */
export function ioReason(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown } | null;
  switch (err?.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a parent is not a directory';
    case 'ENAMETOOLONG':
      return 'name too long';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EIO':
      return 'input/output error (EIO)';
    default: {
      const m = messageOf(e);
      // Node's messages repeat the syscall and path ("EIO: i/o error, read"); keep the reason only
      return m.replace(/,\s*(open|read|stat|lstat|mkdir|rename|write|scandir|realpath|access|unlink)\b.*$/, '');
    }
  }
}
