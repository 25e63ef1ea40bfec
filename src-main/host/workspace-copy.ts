/**
 * Web mode keeps a copy of every project the page uploads or downloads in the server's workspace, so that a
 * reload, another window or a restart of the server returns to it by its path (the page remembers the last path,
 * lib/browser-storage.ts) instead of to an example. The copies go to one folder the app owns, KEPT_FOLDER under
 * the workspace root, named after the file (a later upload or download of the same name replaces the copy); a copy
 * holds its data inline (an opened project has its csv: and graph: files read in), its kept channels beside it.
 */
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** The folder under the workspace root that holds the copies (visible: the workspace refuses hidden names). */
const KEPT_FOLDER = 'mechstudio-projects';

/**
 * Where the copy of `fileName` goes under `root`: a plain file name ending in .json, made of letters, digits, '.', '-'
 * and '_'.
 */
function keptCopyPath(root: string, fileName: string): string {
  let name = basename(fileName.replace(/\\/g, '/'))
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[.-]+/, '');
  if (!name || name === '.json') name = 'project.json';
  if (!name.toLowerCase().endsWith('.json')) name = `${name}.json`;
  return join(root, KEPT_FOLDER, name);
}

/** Make the copies' folder (and return the copy's path). */
export async function prepareKeptCopy(root: string, fileName: string): Promise<string> {
  await mkdir(join(root, KEPT_FOLDER), { recursive: true, mode: 0o700 });
  return keptCopyPath(root, fileName);
}
