/**
 * The Node side of MechStudioApi, shared by Electron IPC and the web bridge
 * (no Electron import here: Electron passes its native dialogs in). Every
 * call arriving from a renderer is validated with the protocol schemas before
 * it reaches the dispatcher or the file system.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ApiError,
  currentVersionOf,
  parseJobRequest,
  parseWith,
  projectSchema,
  type AppInfo,
  parseApiCall,
  type ParsedApiCall,
  type ExampleInfo,
  type JobRequest,
  type OpenedProject,
  type ProjectNeedsConsent,
  type ProjectInput,
  type RecentProject,
  type SavedProject,
  type ChannelStatus,
  type Project,
  type UploadSlot,
} from '../../src-shared/protocol';
import { fail, type ApiHost, type Dialogs, type HostSession } from './api-host';
import { HostExports } from './host-exports';
import { namedAs, placeDomainFiles, placed, redactForFiles, type DomainFileRef } from './page-paths';
import { FairJobs, type JobBackend } from './fair-jobs';
import type { QueueSettings } from './queue-settings';
import type { JobRunner } from '../dispatcher/job-runner';
import { channelFolderOf, projectChannelRefs, type ChannelStore } from '../dispatcher/channel-store';
import { withDefaultLpThreads } from '../../src-worker/index';
import { auditExample } from '../project/examples';
import { UNCONFINED, type PathPolicy } from '../fs/workspace';
import { MAX_PROJECT_BYTES, type OutsideFiles, type ProjectStore } from './project-store';
import { downloadName, MAX_UPLOAD_BYTES, type Transfers } from './transfers';
import { projectFileText, unpackProjectFile } from '../project/bundle';
import { KeptClaims } from './kept-claims';
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
  private readonly exports: HostExports;

  constructor(opts: HostOptions) {
    this.opts = opts;
    this.keptClaims = new KeptClaims(opts.channels, opts.store.runCheck?.bind(opts.store));
    this.paths = opts.paths ?? UNCONFINED;
    this.exports = new HostExports({ ...opts, paths: this.paths });
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
        return this.exports.export(c.params[0]);
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

  private async examplesList(): Promise<ExampleInfo[]> {
    return this.opts.store.examples();
  }

  private async examplesLoad(name: string): Promise<OpenedProject> {
    if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.includes('..'))
      fail('invalid-input', `example name '${name}' is not valid`);
    return { path: null, project: this.opts.store.loadExample(name) };
  }
}
