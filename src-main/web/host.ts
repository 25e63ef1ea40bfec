/**
 * The Node side of MechStudioApi, shared by Electron IPC and the web bridge
 * (no Electron import here: Electron passes its native dialogs in). Every
 * call arriving from a renderer is validated with the protocol schemas before
 * it reaches the dispatcher or the file system.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  ApiError,
  parseJobRequest,
  parseWith,
  projectSchema,
  type AppInfo,
  type BridgeCall,
  type ExampleInfo,
  type ExportRequest,
  type ExportResult,
  type JobError,
  type JobEvent,
  type JobRequest,
  type OpenedProject,
  type ProjectInput,
  type RecentProject,
  type SavedProject,
} from '../../src-worker/protocol';
import type { ApiHost, HostSession } from './api-host';

/** What the host needs from the job dispatcher (src-main/dispatcher). */
export interface JobService {
  submit(request: JobRequest): Promise<string> | string;
  cancel(jobId: string): Promise<boolean> | boolean;
  onJobEvent(listener: (event: JobEvent) => void): () => void;
  readonly workers: number;
}

/** What the host needs from project storage (src-main/project): parse + atomic write. */
export interface ProjectStore {
  read(path: string): Promise<ProjectInput>;
  write(path: string, project: ProjectInput): Promise<void>;
  /** `mechstudio run` equivalent into `dir`; returns files written. */
  exportRun?(project: ProjectInput, projectPath: string | null, dir: string): Promise<string[]>;
  /** Stream a mechanism/capacity channel to CSV at `path`. */
  exportChannel?(request: Extract<JobRequest, { type: 'mechanism' | 'capacity' }>, path: string): Promise<string[]>;
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
}

function fail(code: JobError['code'], message: string): never {
  throw new ApiError({ code, message });
}

function str(v: unknown, what: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 4096) fail('invalid-input', `${what} must be a non-empty string`);
  return v;
}

function optPath(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  const p = str(v, what);
  if (p.includes('\0')) fail('invalid-input', `${what} contains a NUL byte`);
  return resolve(p);
}

export class MechStudioHost implements ApiHost {
  private readonly opts: HostOptions;
  private readonly sessionJobs = new Map<string, Set<string>>();
  private readonly jobOwner = new Map<string, HostSession>();
  private readonly unsubscribe: () => void;
  private lastSavePath: string | null = null;

  constructor(opts: HostOptions) {
    this.opts = opts;
    this.unsubscribe = opts.jobs.onJobEvent((e) => {
      const owner = this.jobOwner.get(e.jobId);
      if (!owner) return;
      owner.emit('job', e);
      if (e.kind === 'result' || e.kind === 'error') {
        this.jobOwner.delete(e.jobId);
        this.sessionJobs.get(owner.id)?.delete(e.jobId);
      }
    });
  }

  dispose(): void {
    this.unsubscribe();
  }

  async call(method: string, params: unknown[], session: HostSession): Promise<unknown> {
    if (!Array.isArray(params)) fail('invalid-input', 'params must be an array');
    switch (method as BridgeCall['method']) {
      case 'submit':
        return this.submit(params[0], session);
      case 'cancel':
        return this.cancel(str(params[0], 'job id'), session);
      case 'project.open':
        return this.open(optPath(params[0], 'project path'));
      case 'project.save':
        return this.save(params[0], optPath(params[1], 'project path'));
      case 'project.recent':
        return this.recent();
      case 'project.export':
        return this.export(params[0] as ExportRequest);
      case 'examples.list':
        return this.examplesList();
      case 'examples.load':
        return this.examplesLoad(str(params[0], 'example name'));
      case 'info':
        return { mode: this.opts.mode, version: this.opts.version, workers: this.opts.jobs.workers } satisfies AppInfo;
      default:
        fail('invalid-input', `unknown API method '${String(method)}'`);
    }
  }

  closeSession(session: HostSession): void {
    const jobs = this.sessionJobs.get(session.id);
    this.sessionJobs.delete(session.id);
    for (const id of jobs ?? []) {
      this.jobOwner.delete(id);
      void this.opts.jobs.cancel(id);
    }
  }

  private async submit(raw: unknown, session: HostSession): Promise<string> {
    const parsed = parseJobRequest(raw);
    if (!parsed.ok) throw new ApiError(parsed.error);
    // Renderers never choose where the engine writes: `out` paths go through export().
    const req = parsed.value as JobRequest & { out?: string };
    if (req.out !== undefined) fail('invalid-input', 'submit: "out" is not accepted from the app; use project.export');
    const id = await this.opts.jobs.submit(req);
    this.jobOwner.set(id, session);
    let set = this.sessionJobs.get(session.id);
    if (!set) this.sessionJobs.set(session.id, (set = new Set()));
    set.add(id);
    return id;
  }

  private async cancel(jobId: string, session: HostSession): Promise<boolean> {
    if (this.jobOwner.get(jobId) !== session) return false;
    return this.opts.jobs.cancel(jobId);
  }

  private async open(path?: string): Promise<OpenedProject | null> {
    if (path === undefined) {
      if (!this.opts.dialogs) fail('invalid-input', 'open: give the project file path (web mode has no file dialog)');
      const chosen = await this.opts.dialogs.openProject();
      if (chosen === null) return null;
      path = chosen;
    }
    const project = await this.opts.store.read(path);
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
    return { path };
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

  private async export(req: ExportRequest): Promise<ExportResult> {
    if (!req || typeof req !== 'object') fail('invalid-input', 'export request must be an object');
    const d = this.opts.dialogs;
    if (req.kind === 'channel-csv') {
      const parsed = parseJobRequest(req.request);
      if (!parsed.ok) throw new ApiError(parsed.error);
      if (parsed.value.type !== 'mechanism' && parsed.value.type !== 'capacity') fail('invalid-input', 'channel-csv export needs a mechanism or capacity request');
      let path = optPath(req.path, 'export path');
      if (path === undefined) {
        if (!d) fail('invalid-input', 'export: give the CSV path (web mode has no file dialog)');
        const chosen = await d.saveFile('channel.csv', [{ name: 'CSV', extensions: ['csv'] }]);
        if (chosen === null) return { files: [] };
        path = chosen;
      }
      if (!this.opts.store.exportChannel) fail('internal', 'channel export is not available');
      return { files: await this.opts.store.exportChannel(parsed.value, path) };
    }
    if (req.kind === 'result-json') {
      let path = optPath(req.path, 'export path');
      if (path === undefined) {
        if (!d) fail('invalid-input', 'export: give the JSON path (web mode has no file dialog)');
        const chosen = await d.saveFile('result.json', [{ name: 'JSON', extensions: ['json'] }]);
        if (chosen === null) return { files: [] };
        path = chosen;
      }
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, JSON.stringify(req.result, null, 2));
      return { files: [path] };
    }
    if (req.kind === 'project-run') {
      const parsed = parseWith(projectSchema, req.project, 'project');
      if (!parsed.ok) throw new ApiError(parsed.error);
      let dir = optPath(req.dir, 'export folder');
      if (dir === undefined) {
        if (!d) fail('invalid-input', 'export: give the output folder (web mode has no file dialog)');
        const chosen = await d.chooseDir();
        if (chosen === null) return { files: [] };
        dir = chosen;
      }
      if (!this.opts.store.exportRun) fail('internal', 'project export is not available');
      return { files: await this.opts.store.exportRun(req.project, req.projectPath ?? null, dir) };
    }
    fail('invalid-input', `unknown export kind '${String((req as { kind?: unknown }).kind)}'`);
  }

  private async examplesList(): Promise<ExampleInfo[]> {
    return this.opts.store.examples();
  }

  private async examplesLoad(name: string): Promise<OpenedProject> {
    if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.includes('..')) fail('invalid-input', `example name '${name}' is not valid`);
    return { path: null, project: this.opts.store.loadExample(name) };
  }
}
