/**
 * Application state (Svelte 5 runes): the open project, the selection, job
 * tracking (one subscription to the API's job events) and computed results
 * keyed by mechanism/analysis id.
 */
import {
  runJob,
  type ApiError,
  type MechStudioApi,
  type RecentProject,
  type JobEvent,
  type JobError,
  type JobRequest,
  type CheckResult,
  type JobResult,
  type MechanismResult,
  type RowsResult,
  type ProjectInput,
  compareBuildsLp,
} from '../../src-shared/protocol/index';
import {
  analysisRequest,
  applyDeletion,
  caseStudyRequest,
  channelSource,
  keptSource,
  duplicateItem,
  epsText,
  mechanismRequest,
  newProject,
  renameItem,
  type ChannelSource,
  type DeletionPlan,
  type ItemKind,
} from './project-model';
import { isExpensive, itemHash, projectWithResults, restoreResults } from './kept-results';
import { History } from './history';
import type { JobView } from './job-view';
import { type KeptStatus, askKeptChannels, markNotKept } from './kept-status';
import { type Autosaved, type LastProject, clearAutosave, lastProject, pendingAutosave, rememberLastProject, writeAutosave } from './browser-storage';

export type Selection = { kind: ItemKind; id: string } | null;

/** Results of case studies are keyed apart from analyses (their ids live in another list and may coincide). */
export const caseStudyKey = (id: string): string => `case-study:${id}`;

export type { JobView };

/** Most live LP samples kept per job (older ones are thinned, the first kept). */
const MAX_LIVE_LP_SAMPLES = 1000;

import type { ItemResult } from './item-result';
export type { ItemResult };

/** Most characters of an autosaved project with its results (localStorage holds about 5 MB per origin). */
const AUTOSAVE_RESULTS_BYTES = 2 * 2 ** 20;

export class AppState {
  api: MechStudioApi;
  project = $state<ProjectInput>(newProject());
  path = $state<string | null>(null);
  dirty = $state(false);
  selection = $state<Selection>(null);
  results = $state<Record<string, ItemResult>>({});
  jobs = $state<JobView[]>([]);
  recent = $state<RecentProject[]>([]);
  mode = $state<'electron' | 'web' | 'cli'>('web');
  /** Worker threads of the host's pool (AppInfo.workers): the default lpThreads of an optimal LP. */
  workers = $state<number | null>(null);
  toast = $state<{ text: string; kind: 'ok' | 'bad' | 'info' } | null>(null);
  private toastTimer: ReturnType<typeof setTimeout> | undefined;
  private tick: ReturnType<typeof setInterval> | undefined;

  constructor(api: MechStudioApi) {
    this.api = api;
    api.onJobEvent((e) => this.onEvent(e));
    this.tick = setInterval(() => {
      const now = Date.now();
      for (const j of this.jobs) if (j.status === 'running' || j.status === 'queued') j.elapsedMs = now - j.started;
    }, 200);
  }

  dispose(): void {
    clearInterval(this.tick);
  }

  notify(text: string, kind: 'ok' | 'bad' | 'info' = 'info'): void {
    this.toast = { text, kind };
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => (this.toast = null), kind === 'bad' ? 8000 : 3500);
  }

  private onEvent(e: JobEvent): void {
    const j = this.jobs.find((x) => x.jobId === e.jobId);
    if (j) {
      if (e.kind === 'progress') {
        j.status = 'running';
        if (e.lp) {
          const lp = (j.lp ??= []);
          if (lp.length >= MAX_LIVE_LP_SAMPLES) j.lp = lp.filter((_, i) => i === 0 || i % 2 === 1);
          j.lp!.push(e.lp);
        }
        // An LP's bar never moves back: phase messages without a fraction keep the last one.
        j.fraction = j.lp?.length ? Math.max(j.fraction ?? 0, e.fraction ?? 0) : e.fraction;
        j.message = e.message;
      } else if (e.kind === 'result') {
        j.status = 'done';
        j.fraction = 1;
        j.elapsedMs = e.elapsedMs;
        j.message = 'done';
      } else if (e.kind === 'error') {
        j.status = e.error.code === 'cancelled' ? 'cancelled' : 'error';
        j.elapsedMs = e.elapsedMs;
        j.message = e.error.code === 'cancelled' ? 'cancelled' : e.error.message;
        j.error = e.error.message;
      }
    }
  }

  /** Submit a job, track it in the jobs panel, resolve with its result. */
  run(request: JobRequest, label: string, onId?: (id: string) => void, quiet = false): Promise<JobResult> {
    const view: JobView = { jobId: null, label, type: request.type, started: Date.now(), elapsedMs: 0, fraction: null, message: 'queued', status: 'queued' };
    if ((request.type === 'mechanism' && request.kind === 'optimal') || (request.type === 'compare' && compareBuildsLp(request))) view.stoppable = true;
    // quiet jobs (rows fetched for a view while scrolling) stay out of the jobs panel
    if (!quiet) this.jobs.unshift(view);
    if (this.jobs.length > 30) this.jobs.splice(30);
    const tracked = quiet ? view : this.jobs[0]!;
    // the one submit-and-await (runJob): events that come before the id are replayed to it; the panel row is
    // settled here too, as the panel's own event handler may have seen them before it knew the id
    return runJob(this.api, request, {
      onSubmitted: (jobId) => {
        tracked.jobId = jobId;
        if (tracked.status === 'queued') tracked.status = 'running';
        onId?.(jobId);
      },
    }).then(
      (result) => {
        if (tracked.status !== 'done') Object.assign(tracked, { status: 'done', fraction: 1, message: 'done' });
        return result;
      },
      (err: ApiError) => {
        const error: JobError = { code: err.code, message: err.message, ...(err.detail ? { detail: err.detail } : {}) };
        if (tracked.status === 'queued' || tracked.status === 'running') {
          const cancelled = error.code === 'cancelled';
          Object.assign(tracked, { status: cancelled ? 'cancelled' : 'error', message: cancelled ? 'cancelled' : error.message, error: error.message });
        }
        throw error;
      },
    );
  }

  /**
   * Work the host does for the page outside the job protocol (a CSV export, an apply): shown in the jobs panel
   * while it runs (without Cancel), so that nothing runs unseen. Resolves or rejects as `work` does.
   */
  async task<T>(label: string, type: string, work: () => Promise<T>): Promise<T> {
    const view: JobView = { jobId: null, label, type, started: Date.now(), elapsedMs: 0, fraction: null, message: 'running', status: 'running' };
    this.jobs.unshift(view);
    if (this.jobs.length > 30) this.jobs.splice(30);
    const tracked = this.jobs[0]!;
    try {
      const r = await work();
      Object.assign(tracked, { status: 'done', fraction: 1, message: 'done', elapsedMs: Date.now() - tracked.started });
      return r;
    } catch (e) {
      const message = (e as Error).message;
      Object.assign(tracked, { status: 'error', message, error: message, elapsedMs: Date.now() - tracked.started });
      throw e;
    }
  }

  /** Rows or block means of a channel for a view (a `rows` job, kept out of the jobs panel). */
  async fetchRows(request: Extract<JobRequest, { type: 'rows' }>): Promise<RowsResult> {
    return (await this.run($state.snapshot(request) as typeof request, 'rows for a view', undefined, true)) as RowsResult;
  }

  async cancel(jobId: string): Promise<void> {
    await this.api.cancel(jobId);
  }

  /** Stop a job keeping its best answer so far (an optimal LP: its best private mechanism and certified gap); other jobs are cancelled. */
  async stop(jobId: string): Promise<void> {
    const j = this.jobs.find((x) => x.jobId === jobId);
    if (j) {
      j.stopping = true;
      j.message = j.stoppable ? 'stopping: keeping the best mechanism so far…' : j.message;
    }
    await this.api.stop(jobId);
  }

  /** Domains whose editor holds an edit that cannot be applied (plain problem): nothing on them is computed meanwhile. */
  draftProblems = $state<Record<string, string>>({});

  setDraftProblem(domainId: string, problem: string | null): void {
    if (problem) this.draftProblems[domainId] = problem;
    else if (domainId in this.draftProblems) delete this.draftProblems[domainId];
  }

  /** Refuse to compute on a domain with an unapplied invalid edit (the result would be for the old domain). */
  private draftBlocks(domainId: string | undefined): boolean {
    const p = domainId === undefined ? undefined : this.draftProblems[domainId];
    if (!p) return false;
    this.notify(`The domain '${domainId}' has an edit that is not applied (${p}). Fix it, or leave its page to discard it, before computing.`, 'bad');
    return true;
  }

  /** Undo/redo of project edits (snapshots taken on every markDirty). */
  history = new History();
  canUndo = $state(false);
  canRedo = $state(false);
  /** Bumped by undo/redo (and renames) so editors holding drafts are rebuilt from the project. */
  editVersion = $state(0);

  markDirty(): void {
    this.dirty = true;
    this.refreshStale();
    this.history.record(this.project);
    this.syncHistory();
    this.autosave();
  }

  private syncHistory(): void {
    this.canUndo = this.history.canUndo();
    this.canRedo = this.history.canRedo();
  }

  /** Undo the last edit (results follow by hash: a result computed for the restored inputs is current again). */
  undo(): void {
    const p = this.history.undo();
    if (p) this.restoreEdit(p);
  }

  redo(): void {
    const p = this.history.redo();
    if (p) this.restoreEdit(p);
  }

  private restoreEdit(p: ProjectInput): void {
    this.project = p;
    this.dirty = true;
    this.editVersion++;
    this.refreshStale();
    this.syncHistory();
    const s = this.selection;
    const items = s
      ? s.kind === 'caseStudy'
        ? (p.caseStudies ?? [])
        : s.kind === 'domain'
          ? p.domains
          : s.kind === 'prior'
            ? (p.priors ?? [])
            : s.kind === 'mechanism'
              ? (p.mechanisms ?? [])
              : (p.analyses ?? [])
      : [];
    if (!s || !items.some((x) => x.id === s.id)) this.selection = this.defaultSelection();
    this.autosave();
  }

  /**
   * Mark every result whose inputs no longer hash the same as stale (and
   * current again when an edit is undone). An error is about inputs that
   * are gone once they change: it is dropped rather than left on screen.
   */
  refreshStale(): void {
    for (const [key, r] of Object.entries(this.results)) {
      if (r.status === 'running') continue;
      const now = itemHash(this.project, key);
      if (r.status === 'error') {
        if (r.hash !== undefined && now !== r.hash) delete this.results[key];
        continue;
      }
      if (r.hash !== undefined) {
        r.stale = now !== r.hash;
        // a failure was for other inputs: once the inputs are this result's again, it is simply current
        if (!r.stale) r.failed = undefined;
      }
    }
  }

  /**
   * An item's inputs changed: mark its result, and the results that depend on
   * it (mechanisms and analyses on a domain, analyses of a mechanism), stale.
   */
  invalidate(kind: 'domain' | 'prior' | 'mechanism' | 'analysis', id: string): void {
    const p = this.project;
    const ids = new Set<string>([id]);
    if (kind === 'domain' || kind === 'prior') {
      for (const m of p.mechanisms ?? []) if ((kind === 'domain' ? m.domain : m.prior) === id) ids.add(m.id);
      for (const a of p.analyses ?? [])
        if ((kind === 'domain' && 'domain' in a && a.domain === id) || (kind === 'prior' && 'prior' in a && a.prior === id)) ids.add(a.id);
    }
    for (const a of p.analyses ?? []) if ('mechanism' in a && ids.has(a.mechanism)) ids.add(a.id);
    for (const x of ids) {
      const r = this.results[x];
      if (!r || r.status === 'running') continue;
      if (r.hash !== undefined) {
        const now = itemHash(p, x);
        if (r.status === 'error') {
          if (now !== r.hash) delete this.results[x];
        } else r.stale = now !== r.hash;
      } else if (r.status === 'error')
        delete this.results[x]; // an error about inputs that changed is not shown for the new ones
      else r.stale = true;
    }
  }

  // ---------- computing ----------

  private inflight = new Map<string, Promise<void>>();

  /** Compute a mechanism (one job at a time per id: concurrent callers share it). */
  computeMechanism(id: string): Promise<void> {
    const running = this.inflight.get(id);
    if (running) return running;
    const p: Promise<void> = this.doComputeMechanism(id).finally(() => {
      if (this.inflight.get(id) === p) this.inflight.delete(id);
    });
    this.inflight.set(id, p);
    return p;
  }

  /** Bumped when another project is loaded: late results of the old one are dropped. */
  private generation = 0;

  private put(gen: number, id: string, value: ItemResult): void {
    if (gen === this.generation) this.results[id] = value;
  }

  private current(gen: number, id: string): ItemResult | undefined {
    return gen === this.generation ? this.results[id] : undefined;
  }

  private async doComputeMechanism(id: string): Promise<void> {
    const gen = this.generation;
    const m = (this.project.mechanisms ?? []).find((x) => x.id === id);
    if (!m) return;
    if (this.draftBlocks(m.domain)) return;
    let req;
    let sentSpec: ChannelSource | undefined;
    try {
      req = mechanismRequest(this.project, m);
      if (m.kind !== 'optimal') sentSpec = channelSource(this.project, m, undefined);
    } catch (e) {
      this.put(gen, id, { status: 'error', error: { code: 'invalid-input', message: (e as Error).message } });
      return;
    }
    const domainId = m.domain;
    const epsilon = m.epsilon;
    // the construction as it was sent (later edits make the result stale, not its views different)
    const sourceOf = (res: MechanismResult): ChannelSource | undefined =>
      !res.exists ? undefined : (sentSpec ?? (res.channelRef !== undefined ? { channelRef: res.channelRef } : undefined));
    const res = (await this.runItem(gen, id, req, `${m.kind} mechanism '${id}' (ε = ${epsText(m.epsilon)})`, (done) => {
      const source = sourceOf(done as MechanismResult);
      return source ? { source } : {};
    })) as MechanismResult | undefined;
    const source = res && sourceOf(res);
    // an LP's result (its channel is in the host's cache already) goes into the autosave of an unsaved edit
    if (res?.channelRef !== undefined && gen === this.generation && this.dirty) this.autosave();
    // The privacy check runs in the engine on the mechanism's construction (planar Laplace by its grid offsets)
    // or on the channel the host kept (an LP), at any size the engine admits.
    if (source && gen === this.generation) void this.checkMechanism(gen, id, source, domainId, epsilon);
  }

  /**
   * Run an item's job (`key`: its id, or a case study's key): running (with its job id once known), then done with the
   * result, the hash of the inputs it was computed from and `extra(result)`, or failed (keeping an earlier good result).
   * Returns the result, or undefined when the job failed.
   */
  private async runItem(
    gen: number,
    key: string,
    req: JobRequest,
    label: string,
    extra: (res: JobResult) => Partial<ItemResult> = () => ({}),
  ): Promise<JobResult | undefined> {
    const hash = itemHash(this.project, key) ?? undefined;
    const previous = this.goodResult(key);
    this.put(gen, key, { status: 'running' });
    try {
      const res = await this.run(req, label, (jobId) => {
        const r = this.current(gen, key);
        if (r) r.jobId = jobId;
      });
      this.put(gen, key, { status: 'done', result: res, hash, computedAt: new Date().toISOString(), ...extra(res) });
      this.refreshOne(key);
      return res;
    } catch (e) {
      this.failed(gen, key, e as JobError, previous, hash);
      return undefined;
    }
  }

  /** A finished result of an item (to keep when a new Compute fails). */
  private goodResult(key: string): ItemResult | undefined {
    const r = this.results[key];
    return r?.status === 'done' && r.result ? { ...r, failed: undefined } : undefined;
  }

  /** A Compute failed: a good earlier result stays on screen (marked stale, with the failure), else the error shows. */
  private failed(gen: number, key: string, error: JobError, previous: ItemResult | undefined, hash: string | undefined): void {
    if (previous && error.code !== 'cancelled') {
      const now = itemHash(this.project, key);
      this.put(gen, key, { ...previous, stale: previous.hash === undefined || now !== previous.hash, failed: error.message });
      if (gen === this.generation) this.notify(`Compute failed: ${error.message}. The previous result is kept.`, 'bad');
    } else if (previous) this.put(gen, key, previous);
    else this.put(gen, key, { status: 'error', error, hash });
  }

  private async checkMechanism(gen: number, id: string, source: ChannelSource, domainId: string, epsilon: number): Promise<void> {
    const domain = this.project.domains.find((d) => d.id === domainId)?.domain;
    if (domain === undefined) return;
    try {
      const res = (await this.run({ type: 'check', ...source, domain, epsilon, maxViolations: 10 }, `privacy check of '${id}'`)) as CheckResult;
      const r = this.current(gen, id);
      if (r) r.check = res;
    } catch (e) {
      const r = this.current(gen, id);
      // a check over the engine's work limit is no verdict: the view shows the mechanism job's own measurement and why
      if (r && (e as JobError).code === 'too-large') r.checkSkipped = (e as JobError).message;
      else if (r) r.checkError = (e as JobError).message;
    }
  }

  async computeAnalysis(id: string): Promise<void> {
    const gen = this.generation;
    const a = (this.project.analyses ?? []).find((x) => x.id === id);
    if (!a) return;
    if (this.draftBlocks('domain' in a ? a.domain : (this.project.mechanisms ?? []).find((m) => m.id === a.mechanism)?.domain)) return;
    let req: JobRequest;
    try {
      let source: ChannelSource | undefined;
      if (a.type === 'measure' || a.type === 'check') {
        const mr = this.results[a.mechanism];
        // a mechanism never computed, changed since, or whose kept channel is gone is computed (again) first, in the panel
        if (!mr || mr.status !== 'done' || mr.stale || mr.notKept) await this.computeMechanism(a.mechanism);
        if (gen !== this.generation) return;
        const done = this.results[a.mechanism];
        if (done?.status === 'error') throw new Error(`mechanism '${a.mechanism}' failed: ${done.error?.message ?? ''}`);
        const r = done?.result;
        const m = (this.project.mechanisms ?? []).find((x) => x.id === a.mechanism);
        if (m) source = channelSource(this.project, m, r?.type === 'mechanism' ? r.channelRef : undefined);
      }
      req = analysisRequest(this.project, a, source);
    } catch (e) {
      this.put(gen, id, { status: 'error', error: { code: 'invalid-input', message: (e as Error).message } });
      return;
    }
    await this.runItem(gen, id, req, `${a.type} '${id}'`);
  }

  /** Run a case study (one job; progress and Cancel in the jobs panel and in its view). */
  async computeCaseStudy(id: string): Promise<void> {
    const gen = this.generation;
    const c = (this.project.caseStudies ?? []).find((x) => x.id === id);
    if (!c) return;
    const key = caseStudyKey(id);
    if (this.results[key]?.status === 'running') return;
    let req;
    try {
      req = caseStudyRequest(c);
    } catch (e) {
      this.put(gen, key, { status: 'error', error: { code: 'invalid-input', message: (e as Error).message } });
      return;
    }
    await this.runItem(gen, key, req, `case study '${id}'`);
  }

  /**
   * Delete an item and what its plan takes with it (project-model planDeletion):
   * their results go, running jobs of removed items are cancelled, items whose
   * prior was cleared become stale, and the selection moves to a survivor.
   */
  deleteItems(plan: DeletionPlan): void {
    const removedKeys = [plan.target, ...plan.cascade].map((r) => (r.kind === 'caseStudy' ? caseStudyKey(r.id) : r.id));
    applyDeletion(this.project, plan);
    for (const key of removedKeys) {
      const r = this.results[key];
      if (r?.status === 'running' && r.jobId) void this.cancel(r.jobId).catch(() => undefined);
      this.inflight.delete(key);
      delete this.results[key];
    }
    for (const d of plan.detach) this.invalidate(d.kind === 'mechanism' ? 'mechanism' : 'analysis', d.id);
    const s = this.selection;
    const stillThere =
      s &&
      (s.kind === 'caseStudy'
        ? (this.project.caseStudies ?? [])
        : s.kind === 'domain'
          ? this.project.domains
          : s.kind === 'prior'
            ? (this.project.priors ?? [])
            : s.kind === 'mechanism'
              ? (this.project.mechanisms ?? [])
              : (this.project.analyses ?? [])
      ).some((x) => x.id === s.id);
    if (!stillThere) this.selection = this.defaultSelection();
    this.markDirty();
  }

  private defaultSelection(): Selection {
    const p = this.project;
    if (p.caseStudies?.[0]) return { kind: 'caseStudy', id: p.caseStudies[0].id };
    if (p.mechanisms?.[0]) return { kind: 'mechanism', id: p.mechanisms[0].id };
    if (p.domains[0]) return { kind: 'domain', id: p.domains[0].id };
    return null;
  }

  /** Rename an item (project-model renameItem); its result follows it. Returns a problem in plain words, or null. */
  renameItem(kind: ItemKind, from: string, to: string): string | null {
    let id: string;
    try {
      id = renameItem(this.project, kind, from, to);
    } catch (e) {
      return (e as Error).message;
    }
    if (id !== from) {
      const key = (x: string): string => (kind === 'caseStudy' ? caseStudyKey(x) : x);
      const r = this.results[key(from)];
      if (r) {
        this.results[key(id)] = r;
        delete this.results[key(from)];
      }
      const running = this.inflight.get(key(from));
      if (running) (this.inflight.set(key(id), running), this.inflight.delete(key(from)));
      if (this.selection?.kind === kind && this.selection.id === from) this.selection = { kind, id };
    }
    this.markDirty();
    return null;
  }

  /** Duplicate an item; a finished result is shared (same inputs, same hash). */
  duplicateItem(kind: ItemKind, id: string): void {
    const copy = duplicateItem(this.project, kind, id);
    const key = (x: string): string => (kind === 'caseStudy' ? caseStudyKey(x) : x);
    const r = this.results[key(id)];
    if (r?.status === 'done') this.results[key(copy)] = JSON.parse(JSON.stringify(r)) as ItemResult;
    this.selection = { kind, id: copy };
    this.markDirty();
  }

  /** Compute every mechanism (cheap to moderate; analyses such as threshold searches wait for Run). */
  async computeMechanisms(): Promise<void> {
    await Promise.all((this.project.mechanisms ?? []).map((m) => this.computeMechanism(m.id)));
  }

  /**
   * What opening a project computes: items without a result (kept results
   * are shown as they are), never an expensive one (an optimal LP, or an
   * analysis that needs one): those wait for their Compute or Recompute all.
   */
  async computeMissing(): Promise<void> {
    const p = this.project;
    const gen = this.generation;
    await this.keptChannelsChecked;
    if (gen !== this.generation) return;
    const want = (key: string): boolean => !this.results[key] && !isExpensive(p, key);
    // a kept result saved before its privacy check finished gets its check now (the badge would wait forever)
    for (const m of p.mechanisms ?? []) {
      const r = this.results[m.id];
      if (r?.status !== 'done' || r.stale || r.notKept || r.check || r.result?.type !== 'mechanism' || !r.result.exists) continue;
      // restored from a file: rebuilt from its construction, or an LP's channel that the host keeps
      const source = r.source ?? (m.kind !== 'optimal' ? channelSource(p, m, undefined) : keptSource(r.result.channelRef));
      if (source) void this.checkMechanism(gen, m.id, source, m.domain, m.epsilon);
    }
    await Promise.all([
      ...(p.caseStudies ?? []).filter((c) => want(caseStudyKey(c.id))).map((c) => this.computeCaseStudy(c.id)),
      ...(p.mechanisms ?? []).filter((m) => want(m.id)).map((m) => this.computeMechanism(m.id)),
      ...(p.analyses ?? []).filter((a) => a.type !== 'measure' && a.type !== 'check' && want(a.id)).map((a) => this.computeAnalysis(a.id)),
    ]);
    await Promise.all((p.analyses ?? []).filter((a) => (a.type === 'measure' || a.type === 'check') && want(a.id)).map((a) => this.computeAnalysis(a.id)));
  }

  /** Mark one result stale when its inputs changed while it was computed. */
  private refreshOne(key: string): void {
    const r = this.results[key];
    if (r?.status === 'done' && r.hash !== undefined) r.stale = itemHash(this.project, key) !== r.hash;
  }

  async computeAll(): Promise<void> {
    await Promise.all([
      ...(this.project.caseStudies ?? []).map((c) => this.computeCaseStudy(c.id)),
      ...(this.project.mechanisms ?? []).map((m) => this.computeMechanism(m.id)),
      ...(this.project.analyses ?? []).filter((a) => a.type !== 'measure' && a.type !== 'check').map((a) => this.computeAnalysis(a.id)),
    ]);
    await Promise.all((this.project.analyses ?? []).filter((a) => a.type === 'measure' || a.type === 'check').map((a) => this.computeAnalysis(a.id)));
  }

  // ---------- kept channels (optimal LPs: the host keeps them, on disk beside the project) ----------

  /** Settles when the host has said which restored results' channels it holds (computeMissing waits for it). */
  private keptChannelsChecked: Promise<void> = Promise.resolve();

  /** Ask the host which restored results' channels it still holds (lib/kept-status.ts); a lost one says so. */
  private checkKeptChannels(): Promise<void> {
    const gen = this.generation;
    const asked = askKeptChannels(this.api, this.results);
    return asked ? asked.then((statuses) => void (gen === this.generation && this.markNotKept(statuses))) : Promise.resolve();
  }

  /** Results whose channel the host does not hold: marked (not green, "not kept: compute again"), said once. */
  markNotKept(statuses: KeptStatus[]): void {
    const said = markNotKept(this.results, statuses);
    if (said) this.notify(said, 'bad');
  }

  // ---------- project lifecycle ----------

  setProject(project: ProjectInput, path: string | null): void {
    // Results still on their way belong to the old project: drop them. (Their jobs are left to
    // finish: cancelling a running job while others wait in the queue can stall piscina 5.3.2
    // pools with minThreads 0; see the report.)
    this.generation++;
    this.inflight.clear();
    // results kept in the file come back as they were saved (stale when their inputs no longer hash the same)
    const { project: items, held } = restoreResults(project);
    this.project = items;
    this.path = path;
    this.dirty = false;
    this.results = held;
    this.history.reset(items);
    this.syncHistory();
    this.rememberLast(path);
    this.jobs = this.jobs.filter((j) => j.status === 'running' || j.status === 'queued');
    // a project with case studies (the built-in examples) opens on its first one
    this.selection = this.defaultSelection();
    this.clearAutosave();
    this.keptChannelsChecked = this.checkKeptChannels();
  }

  async refreshRecent(): Promise<void> {
    try {
      this.recent = await this.api.project.recent();
    } catch {
      this.recent = [];
    }
  }

  snapshot(): ProjectInput {
    return JSON.parse(JSON.stringify(this.project)) as ProjectInput;
  }

  /** The project as saved: with its computed results and their input hashes (lib/kept-results.ts). */
  snapshotWithResults(): ProjectInput {
    const { project, skipped } = projectWithResults(this.project, this.results);
    if (skipped.length) this.notify(`saved without the results of ${skipped.join(', ')} (too large to keep in the file; Compute makes them again)`, 'info');
    return project;
  }

  // ---------- the last project (a reload returns to it) ----------

  /** Example name to note as the last project (set by the caller before setProject of an example). */
  lastExample: string | null = null;

  private rememberLast(path: string | null): void {
    rememberLastProject(path, this.lastExample);
    this.lastExample = null;
  }

  /** Note a save under a path as the last project. */
  savedAs(path: string): void {
    this.rememberLast(path);
  }

  lastProject(): LastProject | null {
    return lastProject();
  }

  // ---------- autosave recovery (localStorage; cleared on save/open) ----------

  /**
   * The unsaved project, with its results (within AUTOSAVE_RESULTS_BYTES, LPs first): a recovered project shows
   * an LP's result again, its channel read back from the host's channel cache (the host writes every kept
   * channel there as it is kept).
   */
  autosave(): void {
    writeAutosave(this.path, projectWithResults(this.project, this.results, AUTOSAVE_RESULTS_BYTES).project, this.project);
  }

  clearAutosave(): void {
    clearAutosave();
  }

  pendingRecovery(): Autosaved | null {
    return pendingAutosave();
  }
}
