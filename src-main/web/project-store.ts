/**
 * Project storage used by the app host until/unless src-main/project offers
 * the same: read = JSON parse + projectSchema validation (one readable error),
 * write = atomic (temp file in the same folder, fsync, rename), so a crash
 * mid-save never leaves a truncated project.
 */
import { open, readFile, rename, unlink, mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiError, describeZodError, projectSchema, type ProjectInput } from '../../src-worker/protocol';
import type { ProjectStore } from './host';

export async function readProjectFile(path: string): Promise<ProjectInput> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ApiError({ code: 'invalid-input', message: `cannot read project ${path}: ${(e as Error).message}` });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ApiError({ code: 'invalid-input', message: `${basename(path)} is not valid JSON: ${(e as Error).message}` });
  }
  const r = projectSchema.safeParse(json);
  if (!r.success) throw new ApiError({ code: 'invalid-input', message: describeZodError(r.error, basename(path)) });
  return json as ProjectInput;
}

export async function writeFileAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fh = await open(tmp, 'w', 0o644);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}

export const fileProjectStore: ProjectStore = {
  read: readProjectFile,
  write: async (path, project) => {
    const r = projectSchema.safeParse(project);
    if (!r.success) throw new ApiError({ code: 'invalid-input', message: describeZodError(r.error, 'project') });
    await writeFileAtomic(path, JSON.stringify(project, null, 2) + '\n');
  },
};
