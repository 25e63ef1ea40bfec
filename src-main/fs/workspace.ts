/**
 * Web mode's workspace: the one folder (`--root DIR`, MECHSTUDIO_WEB_ROOT,
 * default the user's home) whose files a page holding the token may read or
 * write, as Jupyter's server confines itself to its root and hides hidden
 * files. Every path the page sends (open, save, export, apply out, graph: and
 * csv: domain files, csv: and points: priors, a project's references) goes
 * through `place` before anything opens it:
 *
 *  - a relative path is taken relative to the root;
 *  - symbolic links are followed: the real path of the deepest existing
 *    ancestor plus the rest, so a file that does not exist yet (an output) is
 *    checked too, and a link (or a dangling link) leading out is caught;
 *  - the path is refused when its real form lies outside the root, or when a
 *    name under the root, as sent or as resolved, starts with '.' (~/.ssh,
 *    ~/.config, a link named .x);
 *  - the refusal is one MechError 'outside-workspace' line naming the path
 *    as sent, never what lies at it.
 *
 * The path handed on is the resolved real one. A check made before an open
 * does not hold at the open (a file swapped for a link in between), so the
 * readers check again what they opened (`readOptions`: the last name opened
 * without following a link, the descriptor's real path under the root, one
 * link only: src-worker/base/confined-open.ts), and the engine's workers do
 * the same for graph:/csv: domain files (Dispatcher `readRoot`). A `graph:`
 * file is read only under the names an edge list has (GRAPH_FILE_EXTENSIONS).
 * The Electron app and the CLI are not confined (UNCONFINED): their user
 * chooses the paths.
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { MechError } from '../../src-shared/errors';
import { REFUSE_SYSTEM_FS, type ReadOptions } from './safe-fs';

export interface PathPolicy {
  /** The workspace root (a real path), or null when paths are not confined. */
  readonly root: string | null;
  /** The absolute path to use for `path`; throws MechError 'outside-workspace' when the policy refuses it. */
  place(path: string, what: string): Promise<string>;
  /**
   * How the host reads a placed file: never /proc or /sys, and when confined, only what lies under the root (checked on
   * the descriptor).
   */
  readonly readOptions: ReadOptions;
}

/** No confinement (Electron, CLI, tests of other things): relative paths against the working directory. */
export const UNCONFINED: PathPolicy = { root: null, place: async (p) => resolve(p), readOptions: REFUSE_SYSTEM_FS };

/**
 * The names a `graph:` file may have in the workspace: an edge list's (networkx, SNAP, CSV); any other file is not read
 * as a graph.
 */
const GRAPH_FILE_EXTENSIONS = ['.csv', '.tsv', '.txt', '.edges', '.edgelist', '.el'] as const;

/**
 * Refuse (outside-workspace) a `graph:` file whose real name (`real`, placed) is not an edge list's; the message names
 * it as sent.
 */
export function checkGraphFileName(real: string, sent: string, what: string): void {
  const name = basename(real).toLowerCase();
  if (!GRAPH_FILE_EXTENSIONS.some((x) => name.endsWith(x) && name.length > x.length))
    outside(
      sent,
      what,
      `is not read as a graph: in the workspace a graph: file is an edge list named *${GRAPH_FILE_EXTENSIONS.join(', *')}`,
    );
}

/** The root web mode uses: --root, else MECHSTUDIO_WEB_ROOT, else the user's home. */
export function webRootFrom(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? (env.MECHSTUDIO_WEB_ROOT || homedir()));
}

function outside(path: string, what: string, why: string): never {
  throw new MechError('outside-workspace', `${what} '${path.slice(0, 300)}' ${why}`);
}

/** The names of `p` below `root`, or null when `p` is not `root` or under it. */
function namesUnder(root: string, p: string): string[] | null {
  const rel = relative(root, p);
  if (rel === '') return [];
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep);
}

/**
 * Real path of the deepest existing ancestor of `abs`, plus the names below it; null when a dangling link is on the
 * way.
 */
async function realOrPlanned(abs: string): Promise<string | null> {
  const rest: string[] = [];
  let p = abs;
  for (;;) {
    try {
      const r = await realpath(p);
      return rest.length ? join(r, ...rest.reverse()) : r;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      // something is at p but does not resolve: a dangling link, whose target could be created anywhere
      if (
        await lstat(p).then(
          () => true,
          () => false,
        )
      )
        return null;
    }
    const parent = dirname(p);
    if (parent === p) return abs;
    rest.push(basename(p));
    p = parent;
  }
}

/** The real path of `path` (symbolic links followed; a part that does not exist yet kept as written). */
export async function realPathOf(path: string): Promise<string> {
  const abs = resolve(path);
  return (await realOrPlanned(abs).catch(() => null)) ?? abs;
}

/** Whether `p` is `dir` or lies under it (both absolute). */
export function isUnder(dir: string, p: string): boolean {
  return namesUnder(dir, p) !== null;
}

/** A policy confining every path to `dir` (which must be an existing folder). */
export async function workspaceRoot(dir: string): Promise<PathPolicy> {
  const given = resolve(dir);
  let root: string;
  try {
    root = await realpath(given);
    if (!(await stat(root)).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new MechError(
      'invalid-input',
      `workspace root '${given}' is not an existing folder (--root DIR or MECHSTUDIO_WEB_ROOT)`,
    );
  }
  return {
    root,
    readOptions: { refuseSystemFs: true, confineTo: root },
    place: async (path, what) => {
      if (path.includes('\0')) outside(path.replaceAll('\0', '\\0'), what, 'contains a NUL byte');
      const abs = resolve(root, path);
      // the names as sent: a hidden one is refused even when a link behind it resolves to a visible file
      const sent = namesUnder(root, abs) ?? namesUnder(given, abs);
      if (sent?.some((n) => n.startsWith('.')))
        outside(path, what, 'passes through a hidden file or folder (a name starting with "."); those are not served');
      let real: string | null;
      try {
        real = await realOrPlanned(abs);
      } catch {
        outside(path, what, 'cannot be resolved inside the workspace');
      }
      if (real === null) outside(path, what, 'passes through a dangling symbolic link');
      const names = namesUnder(root, real);
      if (names === null) outside(path, what, `lies outside the workspace folder ${root}`);
      if (names.some((n) => n.startsWith('.')))
        outside(path, what, 'leads through a hidden file or folder (a name starting with "."); those are not served');
      return real;
    },
  };
}
