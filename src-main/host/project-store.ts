/**
 * The app's project storage, on top of src-main/project (validated reads,
 * atomic writes, recent list, examples, `mechstudio run` export). Opening a
 * project resolves its file references (csv:FILE priors and losses become
 * numbers, file domains absolute paths) so the renderer, which cannot read
 * files, gets a self-contained project; saving writes that resolved form.
 */
import { dirname, resolve } from 'node:path';
import type { JobRunner } from '../dispatcher/job-runner';
import { listExamples, loadExample } from '../project/examples';
import { parseProject } from '../project/project-file';
import { addRecent, readRecent } from '../project/recent';
import { projectFileRefs, resolveProjectFiles } from '../project/resolve-files';
import { checkGraphFileName, isUnder, realPathOf, UNCONFINED, type PathPolicy } from '../fs/workspace';
import { runProject } from '../project/run-project';
import {
  ApiError,
  currentVersionOf,
  describeZodError,
  projectSchema,
  type ApplyResult,
  type CheckResult,
  type ExampleInfo,
  type JobRequest,
  type Project,
  type ProjectInput,
  type RecentProject,
} from '../../src-shared/protocol';
import { MechError } from '../../src-shared/errors';
import { toJobError } from './api-host';
import { redactJobError } from './redact';
import { checkRegularFile, readRegularFile, REFUSE_SYSTEM_FS, writeFileAtomicAsync } from '../fs/safe-fs';

/** Project files (a resolved project embeds its priors as numbers). */
export const MAX_PROJECT_BYTES = 64 * 2 ** 20;
/** CSV priors, losses and case-study parameters the host reads for a project. */
const MAX_DATA_FILE_BYTES = 64 * 2 ** 20;

/** The csv:FILE references of a project the host itself reads (priors, losses, case-study parameters), absolute. */
function projectDataFiles(project: Project, baseDir: string): string[] {
  return projectFileRefs(project, baseDir)
    .filter((r) => !r.what.startsWith('domain '))
    .map((r) => r.file);
}

/**
 * How a page's project is read: the workspace policy (web mode) and whether files outside the project's folder may be
 * read.
 */
interface ProjectReadOptions {
  paths?: PathPolicy;
  /** The user agreed to read the files outside the project's folder that the last open listed. */
  allowOutside?: boolean;
}

/** A project not read because it refers to files outside its folder: those files, for the user to agree to. */
export interface OutsideFiles {
  outside: string[];
}

/**
 * What the host (./host.ts) needs from project storage (src-main/project): parse + atomic write; createProjectStore
 * below is it.
 */
export interface ProjectStore {
  /**
   * The project, or the files outside its folder it refers to (nothing read but the project) unless opts.allowOutside.
   */
  read(path: string, opts?: ProjectReadOptions): Promise<ProjectInput | OutsideFiles>;
  write(path: string, project: ProjectInput): Promise<void>;
  /** A project from its text (an uploaded file): `name` in its messages, references relative to `baseDir`. */
  readText?(
    text: string,
    name: string,
    baseDir: string,
    opts?: ProjectReadOptions,
  ): Promise<ProjectInput | OutsideFiles>;
  /** `mechstudio run` equivalent into `dir`; returns files written. */
  exportRun?(project: ProjectInput, projectPath: string | null, dir: string, paths?: PathPolicy): Promise<string[]>;
  /** Stream a mechanism/capacity channel to CSV at `path`. */
  exportChannel?(request: Extract<JobRequest, { type: 'mechanism' | 'capacity' }>, path: string): Promise<string[]>;
  /** Run an apply job (input and out are host-chosen paths). */
  runApply?(request: Extract<JobRequest, { type: 'apply' }>): Promise<ApplyResult>;
  /** Run a privacy check (a kept channel at the eps its result claims: ./kept-claims). */
  runCheck?(request: Extract<JobRequest, { type: 'check' }>): Promise<CheckResult>;
  /** Built-in examples (resources/examples), file references resolved. */
  examples(): ExampleInfo[];
  loadExample(name: string): ProjectInput;
  /** Recently opened/saved projects, most recent first. */
  recent(): RecentProject[];
  addRecent(path: string, name: string): RecentProject[];
}

/**
 * Place every file a project refers to with the policy (web mode: refused
 * outside the workspace), and list those that lie outside `baseDir` (links
 * followed).
 */
async function placeProjectFiles(project: Project, baseDir: string, paths: PathPolicy): Promise<{ outside: string[] }> {
  const base = await realPathOf(baseDir);
  const outside: string[] = [];
  for (const r of projectFileRefs(project, baseDir)) {
    const placed = paths.root === null ? await realPathOf(r.file) : await paths.place(r.file, r.what);
    if (paths.root !== null && r.graph) checkGraphFileName(placed, r.file, r.what);
    if (!isUnder(base, placed)) outside.push(placed);
  }
  return { outside: [...new Set(outside)] };
}

/** Offset of the first JSON syntax error in `text` (text.length when it ends too early); -1 when valid. */
function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const str = (): void => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail();
      const ch = text.charCodeAt(i);
      if (ch === 34) return void i++;
      if (ch < 32) fail();
      if (ch === 92) {
        i++;
        const e = text[i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else fail();
      } else i++;
    }
  };
  const value = (depth: number): void => {
    if (depth > 512) fail();
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    }
    if (ch === '"') return str();
    const m = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += m![0].length;
  };
  try {
    value(0);
    ws();
    return i === text.length ? -1 : i;
  } catch (at) {
    if (typeof at === 'number') return at;
    throw at;
  }
}

/**
 * Throws when `text` is not JSON: the message is the app's own (the file, line and column, never a snippet of the
 * text), so it is thrown before the redaction that masks the words a file contains ("not" among them).
 */
function assertJson(text: string, path: string): void {
  try {
    JSON.parse(text);
  } catch {
    const at = jsonErrorOffset(text);
    let where = '';
    if (at >= 0) {
      const before = text.slice(0, at);
      where = ` at line ${before.split('\n').length}, column ${at - before.lastIndexOf('\n')}`;
    }
    throw new MechError('invalid-input', `${path}: not valid JSON${where}`);
  }
}

/**
 * Open a project from a client-given path without blocking on FIFOs or
 * /proc files, with byte caps for the project and every file it references,
 * and errors that name file, line and column but never quote the files.
 */
export async function readProjectSafely(
  path: string,
  opts: ProjectReadOptions = {},
): Promise<ProjectInput | OutsideFiles> {
  const abs = resolve(path);
  let text: string;
  try {
    text = await readRegularFile(abs, 'project', MAX_PROJECT_BYTES, (opts.paths ?? UNCONFINED).readOptions);
  } catch (e) {
    throw new ApiError(redactJobError(toJobError(e), [path, abs]));
  }
  return projectFromText(text, path, dirname(abs), opts, [abs]);
}

/**
 * A project from its text: `shown` names it in every message (the path the
 * user gave, or an uploaded file's name), its references are read relative
 * to `baseDir`.
 */
export async function projectFromText(
  text: string,
  shown: string,
  baseDir: string,
  opts: ProjectReadOptions = {},
  keepAlso: string[] = [],
): Promise<ProjectInput | OutsideFiles> {
  try {
    assertJson(text, shown);
  } catch (e) {
    throw new ApiError(toJobError(e));
  }
  const contents: string[] = [text];
  const keep = [shown, ...keepAlso];
  try {
    const project = parseProject(text, shown);
    const { outside } = await placeProjectFiles(project, baseDir, opts.paths ?? UNCONFINED);
    // files outside the project's folder are read only once the user has seen them listed and agreed
    if (outside.length > 0 && opts.allowOutside !== true) return { outside };
    const files = projectDataFiles(project, baseDir);
    keep.push(...files, baseDir);
    for (const f of files)
      await checkRegularFile(f, 'data file', MAX_DATA_FILE_BYTES, (opts.paths ?? UNCONFINED).readOptions);
    try {
      return resolveProjectFiles(project, baseDir);
    } catch (e) {
      for (const f of files) {
        const t = await readRegularFile(f, 'data file', MAX_DATA_FILE_BYTES, REFUSE_SYSTEM_FS).catch(() => null);
        if (t !== null) contents.push(t);
      }
      throw e;
    }
  } catch (e) {
    throw new ApiError(redactJobError(toJobError(e), keep, contents));
  }
}

/** Validate, then write atomically as a file of the current version (regular files only, never under /proc or /sys). */
export async function writeProjectSafely(path: string, project: ProjectInput): Promise<void> {
  const r = projectSchema.safeParse(project);
  if (!r.success) throw new MechError('invalid-input', describeZodError(r.error, 'project'));
  await writeFileAtomicAsync(path, JSON.stringify(currentVersionOf(project), null, 2) + '\n', 'project');
}

export function createProjectStore(
  dispatcher: JobRunner,
  opts: { examplesDir: string; configDir: string },
): ProjectStore & {
  examples(): ExampleInfo[];
  loadExample(name: string): ProjectInput;
  recent(): RecentProject[];
  addRecent(path: string, name: string): RecentProject[];
} {
  return {
    read: readProjectSafely,
    readText: (text, name, baseDir, opts) => projectFromText(text, name, baseDir, opts),
    write: writeProjectSafely,
    exportRun: async (project, projectPath, dir, paths = UNCONFINED) => {
      const p = projectSchema.parse(project);
      const baseDir = projectPath ? dirname(resolve(projectPath)) : (paths.root ?? process.cwd());
      await placeProjectFiles(p, baseDir, paths);
      const files = projectDataFiles(p, baseDir);
      for (const f of files) await checkRegularFile(f, 'data file', MAX_DATA_FILE_BYTES, paths.readOptions);
      try {
        const summary = await runProject(dispatcher, p, baseDir, dir);
        return summary.files;
      } catch (e) {
        const specs = p.domains.map((d) => d.domain).filter((d): d is string => typeof d === 'string');
        throw new ApiError(
          redactJobError(toJobError(e), [dir, baseDir, ...files, ...specs, ...(projectPath ? [projectPath] : [])]),
        );
      }
    },
    exportChannel: async (request, path) => {
      const r = await dispatcher.run({ ...request, out: path, inlineLimit: 0 });
      return 'csvPath' in r && typeof r.csvPath === 'string' ? [r.csvPath] : [path];
    },
    runApply: async (request) => {
      const r = await dispatcher.run(request);
      if (r.type !== 'apply') throw new ApiError({ code: 'internal', message: 'apply returned another result type' });
      return r;
    },
    runCheck: async (request) => {
      const r = await dispatcher.run(request);
      if (r.type !== 'check') throw new ApiError({ code: 'internal', message: 'check returned another result type' });
      return r;
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
