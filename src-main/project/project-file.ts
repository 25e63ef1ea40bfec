/**
 * Project files on disk: JSON with a version field, validated by the shared
 * zod schema (src-shared/protocol/project.ts, which reads a file of an earlier
 * version onto the current one: project-migration.ts), saved as the current version, atomically (temp file in
 * the same directory, fsync, rename, fsync the directory) so a crash never
 * leaves a half-written project. Reads and writes go through
 * src-main/fs/safe-fs.ts (regular files only, byte cap, stale temp sweep).
 */
import { invalid, messageOf } from '../../src-shared/errors';
import { readRegularFileSync, writeFileAtomic as writeAtomic } from '../fs/safe-fs';
import { PROJECT_BUNDLE_FORMAT } from './bundle';
import {
  currentVersionOf,
  describeZodError,
  projectSchema,
  type Project,
  type ProjectInput,
} from '../../src-shared/protocol/index';

/**
 * Parse and validate project JSON text; errors name the file and the field. A project bundle (web mode's download
 * of a project with its kept channels) is read as the project it holds (its channels are not read here:
 * bundle.ts unpacks them), unless `bundles` is 'refuse' (a caller that writes the file back).
 */
export function parseProject(text: string, source: string, bundles: 'read' | 'refuse' = 'read'): Project {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    invalid(`${source}: not valid JSON (${messageOf(e)})`);
  }
  if (raw !== null && typeof raw === 'object' && (raw as { format?: unknown }).format === PROJECT_BUNDLE_FORMAT) {
    if (bundles === 'refuse')
      invalid(
        `${source} is a project bundle (a web-mode download with its kept channels): open it in the app and save it as a project file to write to it`,
      );
    raw = (raw as { project?: unknown }).project;
    if (raw === null || typeof raw !== 'object') invalid(`${source}: the bundle holds no project`);
  }
  const r = projectSchema.safeParse(raw);
  if (!r.success) invalid(describeZodError(r.error, source));
  return r.data;
}

/** Largest project file read (bytes): projects are small JSON; data lives in csv: files. */
export const MAX_PROJECT_BYTES = 64 * 1024 * 1024;

export function loadProject(path: string): Project {
  return parseProject(readRegularFileSync(path, 'project', MAX_PROJECT_BYTES), path);
}

/** Write bytes to `path` atomically (the one writer: src-main/fs/safe-fs.ts). */
export function writeFileAtomic(path: string, data: string | Uint8Array, what = 'output'): void {
  writeAtomic(path, data, what);
}

/** Validate, then save atomically, as a file of the current version. Returns the validated project. */
export function saveProject(path: string, project: ProjectInput): Project {
  const r = projectSchema.safeParse(project);
  if (!r.success) invalid(describeZodError(r.error, 'project'));
  writeFileAtomic(path, JSON.stringify(currentVersionOf(project), null, 2) + '\n', 'project');
  return r.data;
}
