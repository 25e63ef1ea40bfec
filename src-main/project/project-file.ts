/**
 * Project files on disk: JSON with a version field, validated by the shared
 * zod schema (src-worker/protocol/project.ts), saved atomically (temp file in
 * the same directory, fsync, rename, fsync the directory) so a crash never
 * leaves a half-written project.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { invalid, MechError } from '../../src-worker/errors';
import { describeZodError } from '../../src-worker/protocol/common';
import { projectSchema, PROJECT_VERSION, type Project, type ProjectInput } from '../../src-worker/protocol/project';

/** Parse and validate project JSON text; errors name the file and the field. */
export function parseProject(text: string, source: string): Project {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    invalid(`${source}: not valid JSON (${(e as Error).message})`);
  }
  if (raw && typeof raw === 'object' && 'version' in raw && (raw as { version: unknown }).version !== PROJECT_VERSION) {
    invalid(`${source}: project version ${String((raw as { version: unknown }).version)} is not supported (this program reads version ${PROJECT_VERSION})`);
  }
  const r = projectSchema.safeParse(raw);
  if (!r.success) invalid(describeZodError(r.error, source));
  return r.data;
}

export function loadProject(path: string): Project {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    invalid(`cannot read project '${path}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  return parseProject(text, path);
}

/** Write bytes to `path` atomically. */
export function writeFileAtomic(path: string, data: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  let fd: number | null = null;
  try {
    fd = openSync(tmp, 'w', 0o644);
    writeSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* not created */
    }
    throw new MechError('invalid-input', `cannot write '${path}': ${(e as Error).message}`);
  }
  try {
    const dfd = openSync(dir, 'r');
    fsyncSync(dfd);
    closeSync(dfd);
  } catch {
    /* directories cannot be fsynced on some platforms */
  }
}

/** Validate, then save atomically. Returns the validated project. */
export function saveProject(path: string, project: ProjectInput): Project {
  const r = projectSchema.safeParse(project);
  if (!r.success) invalid(describeZodError(r.error, 'project'));
  writeFileAtomic(path, JSON.stringify(project, null, 2) + '\n');
  return r.data;
}
