/**
 * What the page keeps in the browser's localStorage between windows: the
 * project a reload returns to, and the autosave of unsaved edits (cleared on
 * save and open). Every access survives a storage that is unavailable or full.
 */
import { currentVersionOf, type ProjectInput } from '../../src-shared/protocol/index';

const AUTOSAVE_KEY = 'mechstudio.autosave.v1';
/**
 * Which project a reload returns to: {path} of the last opened/saved file, or {example} (the file itself is the
 * host's).
 */
const LAST_KEY = 'mechstudio.last.v1';

export type LastProject = { path: string } | { example: string };

export interface Autosaved {
  savedAt: string;
  path: string | null;
  project: ProjectInput;
}

/** Note the project a reload returns to: its path, else the example it came from, else none. */
export function rememberLastProject(path: string | null, example: string | null): void {
  try {
    if (path) localStorage.setItem(LAST_KEY, JSON.stringify({ path }));
    else if (example) localStorage.setItem(LAST_KEY, JSON.stringify({ example }));
    else localStorage.removeItem(LAST_KEY);
  } catch {
    /* storage unavailable: a reload opens the default example */
  }
}

export function lastProject(): LastProject | null {
  try {
    const v = JSON.parse(localStorage.getItem(LAST_KEY) ?? 'null') as { path?: unknown; example?: unknown } | null;
    if (v && typeof v.path === 'string' && v.path) return { path: v.path };
    if (v && typeof v.example === 'string' && v.example) return { example: v.example };
  } catch {
    /* ignore */
  }
  return null;
}

/**
 * Autosave `full` (the project with its results); when the storage is full, `bare` (the project alone), so that
 * the latest edits, not an older autosave, are what a new window offers back; when even that fails the older
 * autosave stays, dated.
 */
export function writeAutosave(path: string | null, full: ProjectInput, bare: ProjectInput): void {
  const save = (project: ProjectInput): boolean => {
    try {
      localStorage.setItem(AUTOSAVE_KEY, JSON.stringify({ savedAt: new Date().toISOString(), path, project }));
      return true;
    } catch {
      return false;
    }
  };
  if (!save(full)) save(bare);
}

export function clearAutosave(): void {
  try {
    localStorage.removeItem(AUTOSAVE_KEY);
  } catch {
    /* ignore */
  }
}

/** The autosave a new window offers back (an earlier version's project in the current version's shape), or null. */
export function pendingAutosave(): Autosaved | null {
  try {
    const raw = localStorage.getItem(AUTOSAVE_KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as Autosaved;
    return v && v.project && Array.isArray(v.project.domains) ? { ...v, project: currentVersionOf(v.project) } : null;
  } catch {
    return null;
  }
}
