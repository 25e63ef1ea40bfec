/**
 * The app's project storage, on top of src-main/project (validated reads,
 * atomic writes, recent list, examples, `mechstudio run` export). Opening a
 * project resolves its file references (csv:FILE priors and losses become
 * numbers, file domains absolute paths) so the renderer, which cannot read
 * files, gets a self-contained project; saving writes that resolved form.
 */
import { dirname, resolve } from 'node:path';
import type { Dispatcher } from '../dispatcher/dispatcher';
import { listExamples, loadExample } from '../project/examples';
import { parseProject } from '../project/project-file';
import { addRecent, readRecent } from '../project/recent';
import { resolveProjectFiles } from '../project/resolve-files';
import { runProject } from '../project/run-project';
import { ApiError, describeZodError, projectSchema, type ExampleInfo, type Project, type ProjectInput, type RecentProject } from '../../src-worker/protocol';
import { MechError } from '../../src-worker/errors';
import { toJobError } from './api-host';
import type { ProjectStore } from './host';
import { redactJobError } from './redact';
import { checkRegularFile, MAX_DATA_FILE_BYTES, MAX_PROJECT_BYTES, readRegularFile, writeFileAtomic } from './safe-files';

/** The csv:FILE references of a project the host itself reads (priors, losses, case-study parameters), absolute. */
export function projectDataFiles(project: Project, baseDir: string): string[] {
  const files: string[] = [];
  const add = (v: unknown): void => {
    if (typeof v === 'string' && v.trim().startsWith('csv:')) files.push(resolve(baseDir, v.trim().slice(4)));
  };
  for (const p of project.priors) add(p.prior);
  for (const m of project.mechanisms) add((m as { loss?: unknown }).loss);
  for (const a of project.analyses) add((a as { loss?: unknown }).loss);
  for (const c of project.caseStudies ?? []) for (const v of Object.values(c.params ?? {})) add(v);
  return files;
}

/** Project JSON text -> validated project; a JSON error gives line and column, never a snippet of the text. */
function parseProjectText(text: string, path: string): Project {
  try {
    JSON.parse(text);
  } catch (e) {
    const pos = /position (\d+)/.exec((e as Error).message);
    let where = '';
    if (pos) {
      const before = text.slice(0, Number(pos[1]));
      const line = before.split('\n').length;
      where = ` at line ${line}, column ${Number(pos[1]) - before.lastIndexOf('\n')}`;
    }
    throw new MechError('invalid-input', `${path}: not valid JSON${where}`);
  }
  return parseProject(text, path);
}

/**
 * Open a project from a client-given path without blocking on FIFOs or
 * /proc files, with byte caps for the project and every file it references,
 * and errors that name file, line and column but never quote the files.
 */
export async function readProjectSafely(path: string): Promise<ProjectInput> {
  const abs = resolve(path);
  const baseDir = dirname(abs);
  const contents: string[] = [];
  const keep = [path, abs];
  try {
    const text = await readRegularFile(abs, 'project', MAX_PROJECT_BYTES);
    contents.push(text);
    const project = parseProjectText(text, path);
    const files = projectDataFiles(project, baseDir);
    keep.push(...files, baseDir);
    for (const f of files) await checkRegularFile(f, 'data file', MAX_DATA_FILE_BYTES);
    try {
      return resolveProjectFiles(project, baseDir);
    } catch (e) {
      for (const f of files) {
        const t = await readRegularFile(f, 'data file', MAX_DATA_FILE_BYTES).catch(() => null);
        if (t !== null) contents.push(t);
      }
      throw e;
    }
  } catch (e) {
    throw new ApiError(redactJobError(toJobError(e), keep, contents));
  }
}

/** Validate, then write atomically (regular files only, never under /proc or /sys). */
export async function writeProjectSafely(path: string, project: ProjectInput): Promise<void> {
  const r = projectSchema.safeParse(project);
  if (!r.success) throw new MechError('invalid-input', describeZodError(r.error, 'project'));
  await writeFileAtomic(path, JSON.stringify(project, null, 2) + '\n', 'project');
}

export function createProjectStore(dispatcher: Dispatcher, opts: { examplesDir: string; configDir: string }): ProjectStore & {
  examples(): ExampleInfo[];
  loadExample(name: string): ProjectInput;
  recent(): RecentProject[];
  addRecent(path: string, name: string): RecentProject[];
} {
  return {
    read: readProjectSafely,
    write: writeProjectSafely,
    exportRun: async (project, projectPath, dir) => {
      const p = projectSchema.parse(project);
      const baseDir = projectPath ? dirname(resolve(projectPath)) : process.cwd();
      const files = projectDataFiles(p, baseDir);
      for (const f of files) await checkRegularFile(f, 'data file', MAX_DATA_FILE_BYTES);
      try {
        const summary = await runProject(dispatcher, p, baseDir, dir);
        return summary.files;
      } catch (e) {
        const specs = p.domains.map((d) => d.domain).filter((d): d is string => typeof d === 'string');
        throw new ApiError(redactJobError(toJobError(e), [dir, baseDir, ...files, ...specs, ...(projectPath ? [projectPath] : [])]));
      }
    },
    exportChannel: async (request, path) => {
      const r = await dispatcher.run({ ...request, out: path, inlineLimit: 0 });
      return 'csvPath' in r && typeof r.csvPath === 'string' ? [r.csvPath] : [path];
    },
    examples: () => listExamples(opts.examplesDir),
    loadExample: (name) => {
      const { path, project } = loadExample(name, opts.examplesDir);
      return resolveProjectFiles(project, dirname(path));
    },
    recent: () => readRecent(opts.configDir),
    addRecent: (path, name) => addRecent(path, name, opts.configDir),
  };
}
