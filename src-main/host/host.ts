/**
 * The Node side of MechStudioApi, shared by Electron IPC and the web bridge
 * (no Electron import here: Electron passes its native dialogs in). Every
 * call arriving from a renderer is validated with the protocol schemas before
 * it reaches the dispatcher or the file system.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { basename, extname, join } from 'node:path';
import type { ReleaseFile } from '../../src-shared/protocol/index';
import {
  ApiError,
  currentVersionOf,
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
  type DownloadOffer,
  type Project,
  type UploadSlot,
} from '../../src-shared/protocol';
import { toJobError, type ApiHost, type HostSession } from './api-host';
import { FairJobs, type JobBackend } from './fair-jobs';
import {
  checkDirTargetAsync,
  checkRegularFile,
  checkWriteTargetAsync,
  readRegularFile,
  REFUSE_SYSTEM_FS,
  writeFileAtomicAsync,
} from '../fs/safe-fs';
import { redactJobError } from './redact';
import { readCsv } from '../../src-shared/csv/csv-reader';
import type { QueueSettings } from './queue-settings';
import type { JobRunner } from '../dispatcher/job-runner';
import { channelFolderOf, projectChannelRefs, type ChannelStore } from '../dispatcher/channel-store';
import { keptRowSource, withDefaultLpThreads, writeChannelCsv } from '../../src-worker/index';
import { auditExample } from '../project/examples';
import { UNCONFINED, checkGraphFileName, type PathPolicy } from '../fs/workspace';
import { MAX_PROJECT_BYTES, type OutsideFiles, type ProjectStore } from './project-store';
import { downloadName, MAX_UPLOAD_BYTES, type Transfers } from './transfers';
import { projectFileText, unpackProjectFile } from '../project/bundle';
import { KeptClaims } from './kept-claims';
import { studyReportPage } from './report-export';
import { prepareKeptCopy } from './workspace-copy';

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

/** Native file dialogs (Electron); absent in web mode, where paths are typed in the app. */
export interface Dialogs {
  openProject(): Promise<string | null>;
  saveProject(suggested: string): Promise<string | null>;
  saveFile(suggested: string, filters: { name: string; extensions: string[] }[]): Promise<string | null>;
  chooseDir(): Promise<string | null>;
}

interface HostOptions {
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
  /**
   * Web mode's downloads and uploads (./transfers): an export or save given no
   * path becomes a one-time download, and Open reads an uploaded file. Electron
   * passes dialogs instead.
   */
  transfers?: Transfers;
}

/**
 * Where an export goes: a path (given, or chosen in the native dialog), or a private file offered as a download under
 * `name`.
 */
interface Target {
  path: string;
  download?: { name: string; mime: string };
}

/** Replace the host's private file paths in an error with the names the user knows them by. */
function namedAs(e: unknown, names: [string, string][]): ApiError {
  const err = toJobError(e);
  let message = err.message;
  for (const [path, name] of names) message = message.split(path).join(name);
  return new ApiError({ ...err, message });
}

function fail(code: JobError['code'], message: string): never {
  throw new ApiError({ code, message });
}

/** An export request after validation (exportRequestSchema). */
type ParsedExportRequest = ApiParams<'project.export'>[0];

/**
 * A validated path placed by the policy (web mode: inside the workspace, links followed); undefined when the caller
 * left it out.
 */
async function placed(paths: PathPolicy, p: string | null | undefined, what: string): Promise<string | undefined> {
  return p === undefined || p === null ? undefined : paths.place(p, what);
}

/** A file a job's domain reads (graph:FILE, csv:FILE), found under any `domain` key of a request. */
interface DomainFileRef {
  spec: string;
  file: string;
}

/** Domain files (graph:FILE, csv:FILE) the engine reads: the engine's own cap (ADMISSION_LIMITS.maxFileBytes). */
const MAX_DOMAIN_FILE_BYTES = 128 * 2 ** 20;

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
        const what = `domain '${spec.slice(0, 200)}' file`;
        const file = await paths.place(m[2]!.trim(), what);
        if (paths.root !== null && m[1]!.toLowerCase() === 'graph') checkGraphFileName(file, m[2]!.trim(), what);
        // confined (web mode): the engine is handed the placed path; unconfined, the request stays as the page wrote it
        if (paths.root !== null) o[k] = `${m[1]!.toLowerCase()}:${file}`;
        refs.push({ spec, file });
      } else if (x !== null && typeof x === 'object') await walk(x, depth + 1);
    }
  };
  await walk(req, 0);
  await checkDomainFiles(refs, paths);
  return refs;
}

/**
 * Check every domain file of a request before any worker opens it (regular file, under the engine's byte cap; confined:
 * under the root, one link).
 */
async function checkDomainFiles(refs: DomainFileRef[], paths: PathPolicy): Promise<void> {
  for (const r of refs) {
    try {
      await checkRegularFile(r.file, 'domain file', MAX_DOMAIN_FILE_BYTES, paths.readOptions);
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
    const text = await readRegularFile(r.file, 'domain file', MAX_DOMAIN_FILE_BYTES, REFUSE_SYSTEM_FS).catch(
      () => null,
    );
    if (text !== null) contents.push(text);
  }
  return redactJobError(
    err,
    refs.flatMap((r) => [r.spec, r.file, r.spec.slice(r.spec.indexOf(':') + 1).trim()]),
    contents,
  );
}

export class MechStudioHost implements ApiHost {
  private readonly opts: HostOptions;
  private readonly fair: FairJobs;
  private readonly sessionJobs = new Map<string, Set<string>>();
  private readonly jobOwner = new Map<string, HostSession>();
  private readonly jobFiles = new Map<string, DomainFileRef[]>();
  private readonly unsubscribe: () => void;
  private readonly unhookReads: () => void;
  private lastSavePath: string | null = null;
  private readonly paths: PathPolicy;
  private readonly keptClaims: KeptClaims;

  constructor(opts: HostOptions) {
    this.opts = opts;
    this.keptClaims = new KeptClaims(opts.channels, opts.store.runCheck?.bind(opts.store));
    this.paths = opts.paths ?? UNCONFINED;
    // web mode serves many sessions: one session's long jobs never hold every thread (fair-jobs.ts)
    this.fair = new FairJobs(opts.jobs, { keepFree: opts.mode === 'web' ? 1 : 0 });
    // a channel read from an uploaded project's folder keeps that folder from expiring
    const transfers = opts.transfers;
    this.unhookReads =
      transfers && opts.channels ? opts.channels.onFolderRead((dir) => transfers.touch(dir)) : () => undefined;
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
    this.unhookReads();
    this.fair.dispose();
  }

  /**
   * The wire edge: the call is parsed into a typed call (parseApiCall: method known, parameters valid) before it is
   * dispatched.
   */
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
      case 'project.openUpload':
        return this.openUpload(c.params[0]);
      case 'transfer.slot':
        return this.slot(c.params[0], c.params[1]);
      case 'project.export':
        return this.export(c.params[0]);
      case 'project.channels':
        // each read back and checked when needed, and privacy-checked at the eps its result claims (./kept-claims)
        return this.keptClaims.status(c.params[0]);
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
    if (req.type === 'audit' && req.input !== undefined)
      fail('invalid-input', 'submit: an audit from the app sends its samples as text, not a file path');
    // graph:/dev/zero, csv:/proc/self/mem, a FIFO, a file outside the workspace: refused here, before a worker opens
    // them
    const refs = await placeDomainFiles(req, this.paths);
    withDefaultLpThreads(req, { pool: this.opts.jobs.workers });
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

  private async open(
    path: string | undefined,
    allowOutside: boolean,
  ): Promise<OpenedProject | ProjectNeedsConsent | null> {
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
    const project = currentVersionOf(raw);
    if (path === undefined && !this.opts.dialogs && this.opts.transfers)
      return this.saveDownload(project, parsed.value);
    if (path === undefined) {
      if (!this.opts.dialogs) {
        if (this.lastSavePath === null)
          fail('invalid-input', 'save: give the project file path (web mode has no file dialog)');
        path = this.lastSavePath;
      } else {
        const chosen = await this.opts.dialogs.saveProject(
          this.lastSavePath ?? `${project.name.replace(/[^\w.-]+/g, '-')}.mechstudio.json`,
        );
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

  /**
   * Web mode's Save: the project (with its kept channels, as one bundle file:
   * src-main/project/bundle.ts) written privately and offered as a download.
   */
  private async saveDownload(project: ProjectInput, parsed: Project): Promise<SavedProject> {
    const transfers = this.opts.transfers!;
    const refs = projectChannelRefs(parsed);
    let notKept: ChannelStatus[] = [];
    let folder: string | null = null;
    const name = `${project.name.replace(/[^\w.-]+/g, '-')}.mechstudio.json`;
    if (refs.length > 0) {
      folder = await transfers.newFolder(downloadName(name));
      notKept = await this.saveChannels(join(folder, 'p.json'), parsed);
    }
    try {
      const file = await transfers.newFile('.json', downloadName(name));
      await writeFile(file, await projectFileText(project, folder && join(folder, 'p.channels')), { mode: 0o600 });
      const download = await transfers.offer(file, name, 'application/json');
      const kept = await this.keepCopy(project, parsed, name);
      const path = kept?.path ?? null;
      const missing = [...notKept, ...(kept?.notKept ?? [])];
      return missing.length ? { path, download, notKept: missing } : { path, download };
    } finally {
      if (folder) await rm(folder, { recursive: true, force: true });
    }
  }

  /**
   * Web mode's Open: a project file the page uploaded, its references read in the workspace, its kept channels (a
   * bundle's) unpacked privately.
   */
  private async openUpload(token: string): Promise<OpenedProject | ProjectNeedsConsent> {
    const transfers = this.opts.transfers;
    if (!transfers || !this.opts.store.readText)
      fail('not-applicable', 'this host takes no uploads (open a project by its path)');
    const got = transfers.claim(token);
    if (!got) fail('invalid-input', 'the uploaded project did not arrive or has expired: pick the file again');
    let folder: string | null = null;
    let project: ProjectInput | OutsideFiles;
    let kept = 0;
    try {
      folder = await transfers.newFolder(got.name);
      const text = await unpackProjectFile(await readFile(got.file, 'utf8'), got.name, folder);
      // the project itself is held to the cap of a project file; only a bundle's channels make the upload larger
      if (text.length > MAX_PROJECT_BYTES)
        fail(
          'too-large',
          `${got.name}: the project is over the ${MAX_PROJECT_BYTES / 2 ** 20} MiB a project file may be`,
        );
      // its references (csv:FILE priors, graph:FILE domains) are the workspace's: relative to its root, refused outside
      // it
      project = await this.opts.store.readText(text, got.name, this.paths.root ?? process.cwd(), {
        paths: this.paths,
        allowOutside: this.paths.root !== null,
      });
      // its unpacked channels count against the private folder's cap and expire unread (transfers.ts)
      const dir = folder;
      if (!('outside' in project))
        kept = await transfers.hold(dir, got.name, () => this.opts.channels?.removeFolder(dir));
    } catch (e) {
      if (folder) await transfers.release(folder);
      throw namedAs(e, [[got.file, got.name], ...(folder ? ([[folder, got.name]] as [string, string][]) : [])]);
    } finally {
      await rm(got.file, { force: true });
    }
    if ('outside' in project) {
      await transfers.release(folder);
      return { path: got.name, outside: project.outside };
    }
    if (kept > 0) this.opts.channels?.addFolder(folder, got.name);
    const parsed = parseWith(projectSchema, project, 'project');
    const copy = parsed.ok ? await this.keepCopy(project, parsed.value, got.name) : null;
    return { path: copy?.path ?? null, project };
  }

  /**
   * Web mode: a copy of an uploaded or downloaded project in the workspace (host/workspace-copy.ts), saved as
   * Save saves (recent list, kept channels beside it); null when there is no workspace or it cannot be written
   * (the upload or download itself stands).
   */
  private async keepCopy(
    project: ProjectInput,
    parsed: Project,
    name: string,
  ): Promise<{ path: string; notKept: ChannelStatus[] } | null> {
    if (this.paths.root === null) return null;
    try {
      const path = await prepareKeptCopy(this.paths.root, name);
      await this.opts.store.write(path, project);
      this.lastSavePath = path;
      await this.touchRecent(path, project.name);
      return { path, notKept: await this.saveChannels(path, parsed) };
    } catch {
      return null;
    }
  }

  private async slot(name: string, bytes: number): Promise<UploadSlot> {
    if (!this.opts.transfers) fail('not-applicable', 'this host takes no uploads');
    if (bytes > MAX_UPLOAD_BYTES)
      fail(
        'too-large',
        `${name} is ${(bytes / 2 ** 20).toFixed(0)} MiB, over the ${MAX_UPLOAD_BYTES / 2 ** 20} MiB the app takes`,
      );
    // the slot holds the announced size of the private folder's space until the file is opened or the slot expires
    return this.opts.transfers.slot(name, MAX_UPLOAD_BYTES, bytes);
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

  /**
   * Where an export goes: the path given (placed by the policy), else the
   * native dialog's choice (Electron; null = cancelled), else a private file
   * offered as a download under `name` (web mode).
   */
  private async target(
    given: string | null | undefined,
    what: string,
    name: string,
    mime: string,
  ): Promise<Target | null> {
    const path = await placed(this.paths, given, what);
    if (path !== undefined) return { path };
    const ext = extname(name).slice(1);
    if (this.opts.dialogs) {
      const chosen = await this.opts.dialogs.saveFile(name, [{ name: ext.toUpperCase(), extensions: [ext] }]);
      return chosen === null ? null : { path: chosen };
    }
    if (this.opts.transfers)
      return { path: await this.opts.transfers.newFile(`.${ext}`, downloadName(name)), download: { name, mime } };
    return fail('invalid-input', `export: give the ${what} (this host has no file dialog)`);
  }

  /** The answer of an export written to `t`: the files, or the download offered (never the private path). */
  private async delivered(t: Target, files: string[]): Promise<ExportResult> {
    if (!t.download) return { files };
    const download: DownloadOffer = await this.opts.transfers!.offer(t.path, t.download.name, t.download.mime);
    return { files: [], download };
  }

  /** Write an export to `t`, its errors naming the download as the user will know it. */
  private async writing(t: Target, write: () => Promise<string[]>): Promise<ExportResult> {
    try {
      return await this.delivered(t, await write());
    } catch (e) {
      if (t.download) await rm(t.path, { force: true });
      throw t.download ? namedAs(e, [[t.path, t.download.name]]) : e;
    }
  }

  private async export(req: ParsedExportRequest): Promise<ExportResult> {
    if (req.kind === 'channel-csv') return this.exportChannel(req);
    if (req.kind === 'kept-channel-csv') return this.exportKeptChannel(req);
    if (req.kind === 'result-json') {
      const t = await this.target(req.path, 'JSON path', req.name ?? 'result.json', 'application/json');
      if (t === null) return { files: [] };
      return this.writing(t, async () => [
        await writeFileAtomicAsync(t.path, JSON.stringify(req.result, null, 2), 'result JSON'),
      ]);
    }
    if (req.kind === 'project-run') {
      // a run writes a folder of files: a path (or Electron's folder dialog); web mode has `mechstudio run` for it
      if (req.dir == null && !this.opts.dialogs)
        fail(
          'invalid-input',
          'export: give the output folder (a project run writes several files; or use mechstudio run)',
        );
      let dir = (await placed(this.paths, req.dir, 'output folder')) ?? (await this.opts.dialogs!.chooseDir());
      if (dir === null) return { files: [] };
      if (!this.opts.store.exportRun) fail('internal', 'project export is not available');
      dir = await checkDirTargetAsync(dir, 'export folder');
      const projectPath = (await placed(this.paths, req.projectPath, 'project')) ?? null;
      return { files: await this.opts.store.exportRun(req.project, projectPath, dir, this.paths) };
    }
    if (req.kind === 'study-report') return this.exportReport(req);
    return this.exportApply(req);
  }

  /** The study report: files read through the path policy, kept channels checked again (host/report-export.ts). */
  private async exportReport(req: Extract<ParsedExportRequest, { kind: 'study-report' }>): Promise<ExportResult> {
    const projectPath = (await placed(this.paths, req.projectPath, 'project')) ?? null;
    const t = await this.target(req.path, 'report path', req.name ?? 'study-report.html', 'text/html');
    if (t === null) return { files: [] };
    const { version, store, channels } = this.opts;
    const html = await studyReportPage(req, projectPath, this.paths, {
      version,
      runCheck: store.runCheck?.bind(store),
      channels,
    });
    return this.writing(t, async () => [await writeFileAtomicAsync(t.path, html, 'study report')]);
  }

  private async exportChannel(req: Extract<ParsedExportRequest, { kind: 'channel-csv' }>): Promise<ExportResult> {
    const request = req.request;
    if (request.type !== 'mechanism' && request.type !== 'capacity')
      fail('invalid-input', 'channel-csv export needs a mechanism or capacity request');
    // an optimal LP would be solved again, unseen, for its CSV: its kept channel is exported instead
    if (request.type === 'mechanism' && request.kind === 'optimal')
      fail(
        'invalid-input',
        "an optimal mechanism's channel is exported from the channel the app keeps (kept-channel-csv): compute it first",
      );
    const t = await this.target(req.path, 'CSV path', req.name ?? 'channel.csv', 'text/csv');
    if (t === null) return { files: [] };
    const exportChannel = this.opts.store.exportChannel;
    if (!exportChannel) fail('internal', 'channel export is not available');
    const refs = await placeDomainFiles(request, this.paths);
    await checkWriteTargetAsync(t.path, 'channel CSV');
    return this.writing(t, async () => {
      try {
        return await exportChannel(request, t.path);
      } catch (e) {
        throw new ApiError(await redactForFiles(toJobError(e), refs));
      }
    });
  }

  /** A kept channel (an optimal LP's) as SPEC §8 CSV, written from the kept doubles by the engine's streamed writer. */
  private async exportKeptChannel(
    req: Extract<ParsedExportRequest, { kind: 'kept-channel-csv' }>,
  ): Promise<ExportResult> {
    if (!this.opts.channels) fail('not-applicable', 'this host keeps no channels');
    const found = await this.opts.channels.locate(req.channelRef);
    if (!found.ok) fail('invalid-input', found.problem);
    const t = await this.target(req.path, 'CSV path', req.name ?? 'channel.csv', 'text/csv');
    if (t === null) return { files: [] };
    const target = await checkWriteTargetAsync(t.path, 'channel CSV');
    return this.writing(t, async () => {
      await writeChannelCsv(keptRowSource(found.channel, `kept channel ${req.channelRef}`), target);
      return [target];
    });
  }

  /**
   * Release a loaded secrets CSV (text) into a CSV file. The text
   * goes to a private temp file the worker streams (messages name it as the
   * user's file, `secretsName`); the released labels come back (at most
   * MAX_APP_RELEASED_ROWS) for the page's chart.
   */
  private async exportApply(req: Extract<ParsedExportRequest, { kind: 'apply' }>): Promise<ExportResult> {
    const secretsName = req.secretsName ?? 'the secrets CSV';
    if (req.secrets.length > MAX_APP_SECRETS_CHARS)
      fail(
        'too-large',
        `apply: ${secretsName} has ${req.secrets.length} characters, over the app's limit of ${MAX_APP_SECRETS_CHARS}; use mechstudio apply for larger files (it streams)`,
      );
    const t = await this.target(req.path, 'CSV path', req.name ?? 'released.csv', 'text/csv');
    if (t === null) return { files: [] };
    if (!this.opts.store.runApply) fail('internal', 'apply is not available');
    const tmpDir = await mkdtemp(join(tmpdir(), 'mechstudio-apply-'));
    const input = join(tmpDir, 'secrets.csv');
    const names: [string, string][] = [
      [input, secretsName],
      ...(t.download ? ([[t.path, t.download.name]] as [string, string][]) : []),
      [tmpDir, secretsName],
    ];
    try {
      await writeFile(input, req.secrets, { encoding: 'utf8', mode: 0o600 });
      const { result, released } = await this.runApply(req.request, input, t.path);
      const shown = t.download ? { ...result, csvPath: t.download.name } : result;
      // the release log's record of both files (the secrets as the page read them; the released CSV as written)
      const files = {
        input: await fileRecord(input, req.secretsName ?? 'secrets.csv'),
        output: await fileRecord(result.csvPath, t.download?.name ?? basename(t.path)),
      };
      return { ...(await this.delivered(t, [result.csvPath])), apply: { result: shown, released, ...files } };
    } catch (e) {
      if (t.download) await rm(t.path, { force: true });
      throw namedAs(e, names);
    } finally {
      await rm(tmpDir, { recursive: true, force: true });
    }
  }

  /** An apply job from the page's request with host-chosen input and output, and the first released labels. */
  private async runApply(
    request: Record<string, unknown>,
    input: string,
    out: string,
  ): Promise<{ result: ApplyResult; released: string[] }> {
    const parsed = parseJobRequest({ ...request, type: 'apply', input, out });
    if (!parsed.ok) throw new ApiError(parsed.error);
    if (parsed.value.type !== 'apply') fail('invalid-input', 'apply: not an apply request');
    const refs = await placeDomainFiles(parsed.value, this.paths);
    await checkWriteTargetAsync(out, 'released CSV');
    let result: ApplyResult;
    try {
      result = await this.opts.store.runApply!(parsed.value);
    } catch (e) {
      throw new ApiError(await redactForFiles(toJobError(e), refs));
    }
    // the released labels: the first field of each row after the header (quoted when it holds a comma: "(2,3)")
    const read = readCsv(await readFile(result.csvPath, 'utf8'), { maxRows: MAX_APP_RELEASED_ROWS + 1 });
    return { result, released: read.ok ? read.rows.slice(1).map((r) => r.fields[0] ?? '') : [] };
  }

  private async examplesList(): Promise<ExampleInfo[]> {
    return this.opts.store.examples();
  }

  private async examplesLoad(name: string): Promise<OpenedProject> {
    if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.includes('..'))
      fail('invalid-input', `example name '${name}' is not valid`);
    return { path: null, project: this.opts.store.loadExample(name) };
  }
}

/** Name, size and SHA-256 of a file of a release. */
async function fileRecord(path: string, name: string): Promise<ReleaseFile> {
  const bytes = await readFile(path);
  return { name: basename(name), size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}
