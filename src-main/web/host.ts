/**
 * The Node side of MechStudioApi, shared by Electron IPC and the web bridge
 * (no Electron import here: Electron passes its native dialogs in). Every
 * call arriving from a renderer is validated with the protocol schemas before
 * it reaches the dispatcher or the file system.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiError,
  MAX_LP_THREADS,
  MAX_APP_RELEASED_ROWS,
  MAX_APP_SECRETS_CHARS,
  type ApplyResult,
  parseJobRequest,
  parseWith,
  projectSchema,
  type AppInfo,
  parseApiCall,
  type ParsedApiCall,
  type ExampleInfo,
  type ApiParams,
  type ExportResult,
  type JobError,
  type JobRequest,
  type OpenedProject,
  type ProjectNeedsConsent,
  type ProjectInput,
  type RecentProject,
  type SavedProject,
  type ChannelStatus,
  type Project,
} from '../../src-shared/protocol';
import { toJobError, type ApiHost, type HostSession } from './api-host';
import { FairJobs, type JobBackend } from './fair-jobs';
import { checkDirTargetAsync, checkRegularFile, checkWriteTargetAsync, readRegularFile, REFUSE_SYSTEM_FS, writeFileAtomicAsync } from '../fs/safe-fs';
import { redactJobError } from './redact';
import { readCsv } from '../../src-shared/csv/csv-reader';
import type { QueueSettings } from './queue-settings';
import type { JobRunner } from '../dispatcher/job-runner';
import { channelFolderOf, projectChannelRefs, type ChannelStore } from '../dispatcher/channel-store';
import { keptRowSource } from '../../src-worker/jobs/kept-channel';
import { writeChannelCsv } from '../../src-worker/jobs/channel-csv';
import { auditExample } from '../project/examples';
import { UNCONFINED, type PathPolicy } from '../fs/workspace';
import type { OutsideFiles, ProjectReadOptions } from './project-store';

/** What the host needs from the job dispatcher (src-main/dispatcher): what FairJobs schedules onto. */
export type JobService = JobBackend;

/** A JobRunner (the pool, the queue, or the app's switchable runner) as the host's JobService. */
export function jobService(runner: JobRunner): JobService {
  return {
    submit: (r) => runner.submit(r),
    cancel: (id) => runner.cancel(id),
    stop: (id) => runner.stop(id),
    onJobEvent: (l) => runner.onJobEvent(l),
    get workers() {
      return runner.threads;
    },
  };
}

/** What the host needs from project storage (src-main/project): parse + atomic write. */
export interface ProjectStore {
  /** The project, or the files outside its folder it refers to (nothing read but the project) unless opts.allowOutside. */
  read(path: string, opts?: ProjectReadOptions): Promise<ProjectInput | OutsideFiles>;
  write(path: string, project: ProjectInput): Promise<void>;
  /** `mechstudio run` equivalent into `dir`; returns files written. */
  exportRun?(project: ProjectInput, projectPath: string | null, dir: string, paths?: PathPolicy): Promise<string[]>;
  /** Stream a mechanism/capacity channel to CSV at `path`. */
  exportChannel?(request: Extract<JobRequest, { type: 'mechanism' | 'capacity' }>, path: string): Promise<string[]>;
  /** Run an apply job (input and out are host-chosen paths). */
  runApply?(request: Extract<JobRequest, { type: 'apply' }>): Promise<ApplyResult>;
  /** Built-in examples (resources/examples), file references resolved. */
  examples(): ExampleInfo[];
  loadExample(name: string): ProjectInput;
  /** Recently opened/saved projects, most recent first. */
  recent(): RecentProject[];
  addRecent(path: string, name: string): RecentProject[];
}

/** Native file dialogs (Electron); absent in web mode, where paths are typed in the app. */
export interface Dialogs {
  openProject(): Promise<string | null>;
  saveProject(suggested: string): Promise<string | null>;
  saveFile(suggested: string, filters: { name: string; extensions: string[] }[]): Promise<string | null>;
  chooseDir(): Promise<string | null>;
}

export interface HostOptions {
  mode: AppInfo['mode'];
  version: string;
  jobs: JobService;
  store: ProjectStore;
  dialogs?: Dialogs;
  /** Called after a successful open/save (Electron rebuilds its Open Recent menu). */
  onRecentChanged?: (recent: RecentProject[]) => void;
  /** Where jobs run (queue.* methods); absent: the local pool only. */
  queue?: QueueSettings;
  /** The channels the job dispatcher keeps (optimal LPs): saved beside a project, read back when it is opened. */
  channels?: ChannelStore;
  /** Where the page's paths may lead (web mode: the workspace root, src-main/fs/workspace.ts); default: anywhere. */
  paths?: PathPolicy;
}

function fail(code: JobError['code'], message: string): never {
  throw new ApiError({ code, message });
}

/** An export request after validation (exportRequestSchema). */
type ParsedExportRequest = ApiParams<'project.export'>[0];

/** A validated path placed by the policy (web mode: inside the workspace, links followed); undefined when the caller left it out. */
async function placed(paths: PathPolicy, p: string | null | undefined, what: string): Promise<string | undefined> {
  return p === undefined || p === null ? undefined : paths.place(p, what);
}

/** A file a job's domain reads (graph:FILE, csv:FILE), found under any `domain` key of a request. */
export interface DomainFileRef {
  spec: string;
  file: string;
}

/** Domain files (graph:FILE, csv:FILE) the engine reads: the engine's own cap (ADMISSION_LIMITS.maxFileBytes). */
export const MAX_DOMAIN_FILE_BYTES = 128 * 2 ** 20;

/**
 * Place every graph:FILE / csv:FILE domain of a request with the policy and,
 * when it confines, rewrite it to the placed path (so the engine reads the
 * file that was checked, and a relative path is the workspace's, not the
 * server's), then
 * check each before any worker opens it (regular file, under the engine's
 * byte cap). Returns the files, for the redaction of errors.
 */
async function placeDomainFiles(req: unknown, paths: PathPolicy): Promise<DomainFileRef[]> {
  const refs: DomainFileRef[] = [];
  const walk = async (v: unknown, depth: number): Promise<void> => {
    if (v === null || typeof v !== 'object' || depth > 6) return;
    if (Array.isArray(v)) {
      if (v.length > 0 && typeof v[0] === 'object') for (const x of v) await walk(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    for (const [k, x] of Object.entries(o)) {
      const spec = k === 'domain' && typeof x === 'string' ? x.trim() : '';
      const m = /^(graph|csv):(.+)$/is.exec(spec);
      if (m && m[2]!.trim() !== '') {
        const file = await paths.place(m[2]!.trim(), `domain '${spec.slice(0, 200)}' file`);
        // confined (web mode): the engine is handed the placed path; unconfined, the request stays as the page wrote it
        if (paths.root !== null) o[k] = `${m[1]!.toLowerCase()}:${file}`;
        refs.push({ spec, file });
      } else if (x !== null && typeof x === 'object') await walk(x, depth + 1);
    }
  };
  await walk(req, 0);
  await checkDomainFiles(refs);
  return refs;
}

/** Check every domain file of a request before any worker opens it (regular file, under the engine's byte cap). */
async function checkDomainFiles(refs: DomainFileRef[]): Promise<void> {
  for (const r of refs) {
    try {
      await checkRegularFile(r.file, 'domain file', MAX_DOMAIN_FILE_BYTES, REFUSE_SYSTEM_FS);
    } catch (e) {
      const err = toJobError(e);
      throw new ApiError({ ...err, message: `domain '${r.spec}': ${err.message}` });
    }
  }
}

/** A job error that may quote a domain file, with the file's text masked out (read again, bounded, only on error). */
async function redactForFiles(err: JobError, refs: DomainFileRef[]): Promise<JobError> {
  const contents: string[] = [];
  for (const r of refs) {
    const text = await readRegularFile(r.file, 'domain file', MAX_DOMAIN_FILE_BYTES, REFUSE_SYSTEM_FS).catch(() => null);
    if (text !== null) contents.push(text);
  }
  return redactJobError(
    err,
    refs.flatMap((r) => [r.spec, r.file, r.spec.slice(r.spec.indexOf(':') + 1).trim()]),
    contents,
  );
}

/**
 * The app's default for the optimal LP's pricing threads: the pool size
 * (AppInfo.workers), when the request leaves lpThreads out (the engine's own
 * default, for the CLI, is 1).
 */
export function withDefaultLpThreads(req: JobRequest, workers: number): JobRequest {
  const threads = Math.max(1, Math.min(MAX_LP_THREADS, Math.floor(workers) || 1));
  const spec = req.type === 'mechanism' ? req : req.type === 'measure' || req.type === 'check' ? req.mechanism : undefined;
  if (spec && spec.kind === 'optimal' && spec.lpThreads === undefined) spec.lpThreads = threads;
  return req;
}

export class MechStudioHost implements ApiHost {
  private readonly opts: HostOptions;
  private readonly fair: FairJobs;
  private readonly sessionJobs = new Map<string, Set<string>>();
  private readonly jobOwner = new Map<string, HostSession>();
  private readonly jobFiles = new Map<string, DomainFileRef[]>();
  private readonly unsubscribe: () => void;
  private lastSavePath: string | null = null;
  private readonly paths: PathPolicy;

  constructor(opts: HostOptions) {
    this.opts = opts;
    this.paths = opts.paths ?? UNCONFINED;
    this.fair = new FairJobs(opts.jobs);
    this.unsubscribe = this.fair.onJobEvent((e) => {
      const owner = this.jobOwner.get(e.jobId);
      if (!owner) return;
      if (e.kind === 'result' || e.kind === 'error') {
        this.jobOwner.delete(e.jobId);
        this.sessionJobs.get(owner.id)?.delete(e.jobId);
        const refs = this.jobFiles.get(e.jobId);
        this.jobFiles.delete(e.jobId);
        if (e.kind === 'error' && refs) {
          void redactForFiles(e.error, refs).then((error) => owner.emit('job', { ...e, error }));
          return;
        }
      }
      owner.emit('job', e);
    });
  }

  dispose(): void {
    this.unsubscribe();
    this.fair.dispose();
  }

  /** The wire edge: the call is parsed into a typed call (parseApiCall: method known, parameters valid) before it is dispatched. */
  async call(method: string, params: unknown[], session: HostSession): Promise<unknown> {
    const parsed = parseApiCall(method, params);
    if (!parsed.ok) throw new ApiError(parsed.error);
    return this.dispatch(parsed.value, session);
  }

  private async dispatch(c: ParsedApiCall, session: HostSession): Promise<unknown> {
    switch (c.method) {
      case 'submit':
        return this.submit(c.params[0], session);
      case 'cancel':
        return this.cancel(c.params[0], session);
      case 'stop':
        return this.stop(c.params[0], session);
      case 'project.open':
        return this.open(await placed(this.paths, c.params[0], 'project'), c.params[1] === true);
      case 'project.save':
        return this.save(c.params[0], await placed(this.paths, c.params[1], 'project'));
      case 'project.recent':
        return this.recent();
      case 'project.export':
        return this.export(c.params[0]);
      case 'project.channels':
        return this.channelStatus(c.params[0]);
      case 'examples.list':
        return this.examplesList();
      case 'examples.load':
        return this.examplesLoad(c.params[0]);
      case 'examples.audit':
        return auditExample(c.params[0]);
      case 'info':
        return { mode: this.opts.mode, version: this.opts.version, workers: this.opts.jobs.workers } satisfies AppInfo;
      case 'queue.status':
        return this.queueSettings().status();
      case 'queue.connect':
        return this.queueSettings().connect(c.params[0]);
      case 'queue.useLocal':
        return this.queueSettings().useLocal();
    }
  }

  private queueSettings(): QueueSettings {
    if (!this.opts.queue) fail('not-applicable', 'this host runs jobs on its local pool only (no job-queue settings)');
    return this.opts.queue;
  }

  closeSession(session: HostSession): void {
    const jobs = this.sessionJobs.get(session.id);
    this.sessionJobs.delete(session.id);
    for (const id of jobs ?? []) {
      this.jobOwner.delete(id);
      this.jobFiles.delete(id);
    }
    this.fair.closeSession(session.id);
  }

  private async submit(raw: unknown, session: HostSession): Promise<string> {
    const parsed = parseJobRequest(raw);
    if (!parsed.ok) throw new ApiError(parsed.error);
    // Renderers never choose where the engine writes: `out` paths go through export().
    const req = parsed.value as JobRequest & { out?: string };
    if (req.out !== undefined) fail('invalid-input', 'submit: "out" is not accepted from the app; use project.export');
    // nor which files it reads: an audit from the app carries its samples as text
    if (req.type === 'audit' && req.input !== undefined) fail('invalid-input', 'submit: an audit from the app sends its samples as text, not a file path');
    // graph:/dev/zero, csv:/proc/self/mem, a FIFO, a file outside the workspace: refused here, before a worker opens them
    const refs = await placeDomainFiles(req, this.paths);
    withDefaultLpThreads(req, this.opts.jobs.workers);
    const id = await this.fair.submit(session.id, req);
    if (refs.length > 0) this.jobFiles.set(id, refs);
    this.jobOwner.set(id, session);
    let set = this.sessionJobs.get(session.id);
    if (!set) this.sessionJobs.set(session.id, (set = new Set()));
    set.add(id);
    return id;
  }

  private async cancel(jobId: string, session: HostSession): Promise<boolean> {
    if (this.jobOwner.get(jobId) !== session) return false;
    return this.fair.cancel(jobId);
  }

  private async stop(jobId: string, session: HostSession): Promise<boolean> {
    if (this.jobOwner.get(jobId) !== session) return false;
    return this.fair.stop(jobId);
  }

  private async open(path: string | undefined, allowOutside: boolean): Promise<OpenedProject | ProjectNeedsConsent | null> {
    if (path === undefined) {
      if (!this.opts.dialogs) fail('invalid-input', 'open: give the project file path (web mode has no file dialog)');
      const chosen = await this.opts.dialogs.openProject();
      if (chosen === null) return null;
      path = chosen;
    }
    const project = await this.opts.store.read(path, { paths: this.paths, allowOutside });
    if ('outside' in project) return { path, outside: project.outside };
    // the project's kept channels are read back from its channel folder when a view, measure or check names them
    this.opts.channels?.addFolder(channelFolderOf(path));
    this.lastSavePath = path;
    await this.touchRecent(path, project.name);
    return { path, project };
  }

  private async save(raw: unknown, path?: string): Promise<SavedProject | null> {
    const parsed = parseWith(projectSchema, raw, 'project');
    if (!parsed.ok) throw new ApiError(parsed.error);
    const project = raw as ProjectInput;
    if (path === undefined) {
      if (!this.opts.dialogs) {
        if (this.lastSavePath === null) fail('invalid-input', 'save: give the project file path (web mode has no file dialog)');
        path = this.lastSavePath;
      } else {
        const chosen = await this.opts.dialogs.saveProject(this.lastSavePath ?? `${project.name.replace(/[^\w.-]+/g, '-')}.mechstudio.json`);
        if (chosen === null) return null;
        path = chosen;
      }
    }
    await this.opts.store.write(path, project);
    this.lastSavePath = path;
    await this.touchRecent(path, project.name);
    const notKept = await this.saveChannels(path, parsed.value);
    return notKept.length ? { path, notKept } : { path };
  }

  /**
   * Write the kept channels a saved project's results name into its channel
   * folder (NAME.channels beside NAME.json) and drop the folder's others;
   * returns those that could not be found (their results are not kept).
   */
  private async saveChannels(path: string, project: Project): Promise<ChannelStatus[]> {
    const store = this.opts.channels;
    const refs = projectChannelRefs(project);
    if (!store) return refs.map((channelRef) => ({ channelRef, kept: false, problem: 'this host keeps no channels' }));
    const { missing } = await store.saveTo(channelFolderOf(path), refs);
    return missing.map((m) => ({ channelRef: m.id, kept: false, problem: m.problem }));
  }

  /** Which kept channels the host holds (memory, project folders, cache), each read back and checked when needed. */
  private async channelStatus(refs: string[]): Promise<ChannelStatus[]> {
    const out: ChannelStatus[] = [];
    for (const channelRef of new Set(refs)) {
      const r = this.opts.channels ? await this.opts.channels.locate(channelRef) : { ok: false as const, problem: 'this host keeps no channels' };
      out.push(r.ok ? { channelRef, kept: true } : { channelRef, kept: false, problem: r.problem });
    }
    return out;
  }

  async recent(): Promise<RecentProject[]> {
    return this.opts.store.recent();
  }

  private async touchRecent(path: string, name: string): Promise<void> {
    let next: RecentProject[];
    try {
      next = this.opts.store.addRecent(path, name);
    } catch {
      return; // recent files are a convenience; never fail an open/save because of them
    }
    this.opts.onRecentChanged?.(next);
  }

  /** Ask for a path with the native dialog when the caller gave none; null = the user cancelled. */
  private async pathOrDialog(given: string | null | undefined, what: string, ask: (d: Dialogs) => Promise<string | null>): Promise<string | null> {
    const path = await placed(this.paths, given, what);
    if (path !== undefined) return path;
    if (!this.opts.dialogs) fail('invalid-input', `export: give the ${what} (web mode has no file dialog)`);
    return ask(this.opts.dialogs);
  }

  private async export(req: ParsedExportRequest): Promise<ExportResult> {
    if (req.kind === 'channel-csv') return this.exportChannel(req);
    if (req.kind === 'kept-channel-csv') return this.exportKeptChannel(req);
    if (req.kind === 'result-json') {
      const path = await this.pathOrDialog(req.path, 'JSON path', (d) => d.saveFile('result.json', [{ name: 'JSON', extensions: ['json'] }]));
      if (path === null) return { files: [] };
      return { files: [await writeFileAtomicAsync(path, JSON.stringify(req.result, null, 2), 'result JSON')] };
    }
    if (req.kind === 'project-run') {
      let dir = await this.pathOrDialog(req.dir, 'output folder', (d) => d.chooseDir());
      if (dir === null) return { files: [] };
      if (!this.opts.store.exportRun) fail('internal', 'project export is not available');
      dir = await checkDirTargetAsync(dir, 'export folder');
      const projectPath = (await placed(this.paths, req.projectPath, 'project')) ?? null;
      return { files: await this.opts.store.exportRun(req.project, projectPath, dir, this.paths) };
    }
    return this.exportApply(req);
  }

  private async exportChannel(req: Extract<ParsedExportRequest, { kind: 'channel-csv' }>): Promise<ExportResult> {
    const request = req.request;
    if (request.type !== 'mechanism' && request.type !== 'capacity') fail('invalid-input', 'channel-csv export needs a mechanism or capacity request');
    // an optimal LP would be solved again, unseen, for its CSV: its kept channel is exported instead
    if (request.type === 'mechanism' && request.kind === 'optimal')
      fail('invalid-input', "an optimal mechanism's channel is exported from the channel the app keeps (kept-channel-csv): compute it first");
    const path = await this.pathOrDialog(req.path, 'CSV path', (d) => d.saveFile('channel.csv', [{ name: 'CSV', extensions: ['csv'] }]));
    if (path === null) return { files: [] };
    if (!this.opts.store.exportChannel) fail('internal', 'channel export is not available');
    const refs = await placeDomainFiles(request, this.paths);
    await checkWriteTargetAsync(path, 'channel CSV');
    try {
      return { files: await this.opts.store.exportChannel(request, path) };
    } catch (e) {
      throw new ApiError(await redactForFiles(toJobError(e), refs));
    }
  }

  /** A kept channel (an optimal LP's) as SPEC §8 CSV, written from the kept doubles by the engine's streamed writer. */
  private async exportKeptChannel(req: Extract<ParsedExportRequest, { kind: 'kept-channel-csv' }>): Promise<ExportResult> {
    if (!this.opts.channels) fail('not-applicable', 'this host keeps no channels');
    const found = await this.opts.channels.locate(req.channelRef);
    if (!found.ok) fail('invalid-input', found.problem);
    const path = await this.pathOrDialog(req.path, 'CSV path', (d) => d.saveFile('channel.csv', [{ name: 'CSV', extensions: ['csv'] }]));
    if (path === null) return { files: [] };
    const target = await checkWriteTargetAsync(path, 'channel CSV');
    await writeChannelCsv(keptRowSource(found.channel, `kept channel ${req.channelRef}`), target);
    return { files: [target] };
  }

  /**
   * Release a loaded secrets CSV (text) into a CSV file. The text
   * goes to a private temp file the worker streams; the released labels come
   * back (at most MAX_APP_RELEASED_ROWS) for the page's chart.
   */
  private async exportApply(req: Extract<ParsedExportRequest, { kind: 'apply' }>): Promise<ExportResult> {
    if (req.secrets.length > MAX_APP_SECRETS_CHARS)
      fail(
        'too-large',
        `apply: the secrets CSV has ${req.secrets.length} characters, over the app's limit of ${MAX_APP_SECRETS_CHARS}; use mechstudio apply for larger files (it streams)`,
      );
    const path = await this.pathOrDialog(req.path, 'CSV path', (d) => d.saveFile('released.csv', [{ name: 'CSV', extensions: ['csv'] }]));
    if (path === null) return { files: [] };
    if (!this.opts.store.runApply) fail('internal', 'apply is not available');
    const tmpDir = await mkdtemp(join(tmpdir(), 'mechstudio-apply-'));
    const input = join(tmpDir, 'secrets.csv');
    try {
      await writeFile(input, req.secrets, { encoding: 'utf8', mode: 0o600 });
      const parsed = parseJobRequest({ ...req.request, type: 'apply', input, out: path });
      if (!parsed.ok) throw new ApiError(parsed.error);
      if (parsed.value.type !== 'apply') fail('invalid-input', 'apply: not an apply request');
      const refs = await placeDomainFiles(parsed.value, this.paths);
      await checkWriteTargetAsync(path, 'released CSV');
      let result: ApplyResult;
      try {
        result = await this.opts.store.runApply(parsed.value);
      } catch (e) {
        throw new ApiError(await redactForFiles(toJobError(e), refs));
      }
      // the released labels: the first field of each row after the header (quoted when it holds a comma: "(2,3)")
      const read = readCsv(await readFile(result.csvPath, 'utf8'), { maxRows: MAX_APP_RELEASED_ROWS + 1 });
      const released = read.ok ? read.rows.slice(1).map((r) => r.fields[0] ?? '') : [];
      return { files: [result.csvPath], apply: { result, released } };
    } finally {
      await rm(tmpDir, { recursive: true, force: true });
    }
  }

  private async examplesList(): Promise<ExampleInfo[]> {
    return this.opts.store.examples();
  }

  private async examplesLoad(name: string): Promise<OpenedProject> {
    if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.includes('..')) fail('invalid-input', `example name '${name}' is not valid`);
    return { path: null, project: this.opts.store.loadExample(name) };
  }
}
