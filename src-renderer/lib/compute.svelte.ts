/**
 * Computing the project's items: one job per mechanism, analysis or case
 * study, its result kept under the item's key with the hash of the inputs it
 * was computed from (a failed Compute keeps an earlier good result), the
 * privacy check of each mechanism, and the question which kept channels (an
 * optimal LP's, held by the host) restored results can still use.
 */
import type {
  CheckResult,
  DomainInput,
  JobError,
  JobRequest,
  JobResult,
  MechStudioApi,
  MechanismResult,
  ProjectInput,
} from '../../src-shared/protocol/index';
import { APP_REQUESTS, caseStudyRequest, epsText } from './project-model';
import {
  analysisRequest,
  channelSource,
  domainOf,
  mechanismRequest,
  type ChannelSource,
} from '../../src-shared/project/item-requests';
import { isExpensive, itemHash } from './kept-results';
import { type KeptStatus, askKeptChannels, markNotKept } from './kept-status';
import { refreshOne } from './stale-results';
import { computedChannel, type ItemResult } from './item-result';
import type { Toasts } from './toasts.svelte';
import type { JobQueue } from './job-queue.svelte';
import type { EditHistory } from './edit-history.svelte';
import { messageOf } from '../../src-shared/errors';

/** Results of case studies are keyed apart from analyses (their ids live in another list and may coincide). */
export const caseStudyKey = (id: string): string => `case-study:${id}`;

/** What computing needs of the app: the open project and its results, and the rooms it works through (by name). */
export interface ComputeHost {
  readonly api: MechStudioApi;
  readonly project: ProjectInput;
  readonly results: Record<string, ItemResult>;
  readonly dirty: boolean;
  /** The jobs panel: each item's job runs there. */
  readonly queue: Pick<JobQueue, 'run' | 'cancel'>;
  readonly toasts: Pick<Toasts, 'notify'>;
  /** Why nothing may be computed on a domain now (an unapplied invalid edit). */
  readonly edits: Pick<EditHistory, 'draftBlock'>;
  /** The autosave (project-files.svelte.ts): an LP's result goes into the autosave of an unsaved edit. */
  readonly files: { autosave(): void };
}

export class Compute {
  /** Bumped when another project is loaded: late results of the old one are dropped. */
  private generation = 0;
  private readonly inflight = new Map<string, Promise<void>>();
  /** Settles when the host has said which restored results' channels it holds (computeMissing waits for it). */
  private keptChannelsChecked: Promise<void> = Promise.resolve();

  constructor(private readonly app: ComputeHost) {}

  /**
   * Another project is open (its results restored): results still on their way belong to the old one and are
   * dropped, and the host is asked which kept channels the restored results name. (The old jobs are left to
   * finish: cancelling a running job while others wait in the queue can stall piscina 5.3.2 pools with
   * minThreads 0.)
   */
  opened(): void {
    this.generation++;
    this.inflight.clear();
    this.keptChannelsChecked = this.checkKeptChannels();
  }

  /** An item is deleted: its running job is cancelled and its result goes. */
  forget(key: string): void {
    const r = this.app.results[key];
    if (r?.status === 'running' && r.jobId) void this.app.queue.cancel(r.jobId).catch(() => undefined);
    this.inflight.delete(key);
    delete this.app.results[key];
  }

  /** An item is renamed: its result and its running Compute follow it. */
  rename(from: string, to: string): void {
    const results = this.app.results;
    const r = results[from];
    if (r) {
      results[to] = r;
      delete results[from];
    }
    const running = this.inflight.get(from);
    if (running) (this.inflight.set(to, running), this.inflight.delete(from));
  }

  private put(gen: number, id: string, value: ItemResult): void {
    if (gen === this.generation) this.app.results[id] = value;
  }

  private current(gen: number, id: string): ItemResult | undefined {
    return gen === this.generation ? this.app.results[id] : undefined;
  }

  /** Refuse to compute on a domain with an unapplied invalid edit (the result would be for the old domain). */
  private draftBlocks(domainId: string | undefined): boolean {
    const said = this.app.edits.draftBlock(domainId);
    if (said) this.app.toasts.notify(said, 'bad');
    return said !== null;
  }

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

  private async doComputeMechanism(id: string): Promise<void> {
    const gen = this.generation;
    const project = this.app.project;
    const m = (project.mechanisms ?? []).find((x) => x.id === id);
    if (!m) return;
    if (this.draftBlocks(m.domain)) return;
    let req;
    let sentSpec: ChannelSource | undefined;
    try {
      req = mechanismRequest(project, m, APP_REQUESTS);
      if (m.kind !== 'optimal') sentSpec = channelSource(project, m, undefined);
    } catch (e) {
      this.put(gen, id, { status: 'error', error: { code: 'invalid-input', message: messageOf(e) } });
      return;
    }
    const domainId = m.domain;
    const epsilon = m.epsilon;
    // the construction as it was sent (later edits make the result stale, not its views different)
    const sourceOf = (res: MechanismResult): ChannelSource | undefined =>
      !res.exists
        ? undefined
        : (sentSpec ?? (res.channelRef !== undefined ? { channelRef: res.channelRef } : undefined));
    const res = (await this.runItem(gen, id, req, `${m.kind} mechanism '${id}' (ε = ${epsText(m.epsilon)})`, (done) => {
      const source = sourceOf(done as MechanismResult);
      return source ? { source } : {};
    })) as MechanismResult | undefined;
    const source = res && sourceOf(res);
    // an LP's result (its channel is in the host's cache already) goes into the autosave of an unsaved edit
    if (res?.channelRef !== undefined && gen === this.generation && this.app.dirty) this.app.files.autosave();
    // The privacy check runs in the engine on the mechanism's construction (planar Laplace by its grid offsets)
    // or on the channel the host kept (an LP), at any size the engine admits.
    if (source && gen === this.generation) void this.checkMechanism(gen, id, source, domainId, epsilon);
  }

  /**
   * Run an item's job (`key`: its id, or a case study's key): running (with its job id once known), then done with the
   * result, the hash of the inputs it was computed from and `extra(result)`, or failed (keeping an earlier good
   * result). Returns the result, or undefined when the job failed.
   */
  private async runItem(
    gen: number,
    key: string,
    req: JobRequest,
    label: string,
    extra: (res: JobResult) => Partial<ItemResult> = () => ({}),
  ): Promise<JobResult | undefined> {
    const hash = itemHash(this.app.project, key) ?? undefined;
    const previous = this.goodResult(key);
    this.put(gen, key, { status: 'running' });
    try {
      const res = await this.app.queue.run(req, label, (jobId) => {
        const r = this.current(gen, key);
        if (r) r.jobId = jobId;
      });
      this.put(gen, key, { status: 'done', result: res, hash, computedAt: new Date().toISOString(), ...extra(res) });
      refreshOne(this.app.project, this.app.results, key);
      return res;
    } catch (e) {
      this.failed(gen, key, e as JobError, previous, hash);
      return undefined;
    }
  }

  /** A finished result of an item (to keep when a new Compute fails). */
  private goodResult(key: string): ItemResult | undefined {
    const r = this.app.results[key];
    return r?.status === 'done' && r.result ? { ...r, failed: undefined } : undefined;
  }

  /** A Compute failed: a good earlier result stays on screen (marked stale, with the failure), else the error shows. */
  private failed(
    gen: number,
    key: string,
    error: JobError,
    previous: ItemResult | undefined,
    hash: string | undefined,
  ): void {
    if (previous && error.code !== 'cancelled') {
      const now = itemHash(this.app.project, key);
      this.put(gen, key, {
        ...previous,
        stale: previous.hash === undefined || now !== previous.hash,
        failed: error.message,
      });
      if (gen === this.generation)
        this.app.toasts.notify(`Compute failed: ${error.message}. The previous result is kept.`, 'bad');
    } else if (previous) this.put(gen, key, previous);
    else this.put(gen, key, { status: 'error', error, hash });
  }

  private async checkMechanism(
    gen: number,
    id: string,
    source: ChannelSource,
    domainId: string,
    epsilon: number,
  ): Promise<void> {
    const domain = this.app.project.domains.find((d) => d.id === domainId)?.domain;
    if (domain === undefined) return;
    try {
      const res = (await this.app.queue.run(
        { type: 'check', ...source, domain, epsilon, maxViolations: 10 },
        `privacy check of '${id}'`,
      )) as CheckResult;
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
    const project = this.app.project;
    const a = (project.analyses ?? []).find((x) => x.id === id);
    if (!a) return;
    if (
      this.draftBlocks('domain' in a ? a.domain : (project.mechanisms ?? []).find((m) => m.id === a.mechanism)?.domain)
    )
      return;
    let req: JobRequest;
    try {
      let source: ChannelSource | undefined;
      if (a.type === 'measure' || a.type === 'check') {
        const mr = this.app.results[a.mechanism];
        // a mechanism never computed, changed since, or whose kept channel is gone is computed (again) first, in the
        // panel
        if (!mr || mr.status !== 'done' || mr.stale || mr.notKept) await this.computeMechanism(a.mechanism);
        if (gen !== this.generation) return;
        const done = this.app.results[a.mechanism];
        if (done?.status === 'error')
          throw new Error(`mechanism '${a.mechanism}' failed: ${done.error?.message ?? ''}`);
        const r = done?.result;
        const m = (this.app.project.mechanisms ?? []).find((x) => x.id === a.mechanism);
        if (m) source = channelSource(this.app.project, m, r?.type === 'mechanism' ? r.channelRef : undefined);
      }
      req = analysisRequest(this.app.project, a, { ...APP_REQUESTS, source });
    } catch (e) {
      this.put(gen, id, { status: 'error', error: { code: 'invalid-input', message: messageOf(e) } });
      return;
    }
    await this.runItem(gen, id, req, `${a.type} '${id}'`);
  }

  /** Run a case study (one job; progress and Cancel in the jobs panel and in its view). */
  async computeCaseStudy(id: string): Promise<void> {
    const gen = this.generation;
    const c = (this.app.project.caseStudies ?? []).find((x) => x.id === id);
    if (!c) return;
    const key = caseStudyKey(id);
    if (this.app.results[key]?.status === 'running') return;
    let req;
    try {
      req = caseStudyRequest(c);
    } catch (e) {
      this.put(gen, key, { status: 'error', error: { code: 'invalid-input', message: messageOf(e) } });
      return;
    }
    await this.runItem(gen, key, req, `case study '${id}'`);
  }

  /** Compute every mechanism (cheap to moderate; analyses such as threshold searches wait for Run). */
  async computeMechanisms(): Promise<void> {
    await Promise.all((this.app.project.mechanisms ?? []).map((m) => this.computeMechanism(m.id)));
  }

  /**
   * What opening a project computes: items without a result (kept results
   * are shown as they are), never an expensive one (an optimal LP, or an
   * analysis that needs one): those wait for their Compute or Recompute all.
   */
  async computeMissing(): Promise<void> {
    const p = this.app.project;
    const gen = this.generation;
    await this.keptChannelsChecked;
    if (gen !== this.generation) return;
    const want = (key: string): boolean => !this.app.results[key] && !isExpensive(p, key);
    // a kept result saved before its privacy check finished gets its check now (the badge would wait forever)
    for (const m of p.mechanisms ?? []) {
      const r = this.app.results[m.id];
      if (r?.status !== 'done' || r.stale || r.notKept || r.check || r.result?.type !== 'mechanism' || !r.result.exists)
        continue;
      // restored from a file: rebuilt from its construction, or an LP's channel that the host keeps
      const got = computedChannel(p, m.id, r);
      if ('source' in got) void this.checkMechanism(gen, m.id, got.source, m.domain, m.epsilon);
    }
    await this.computeItems(() => p, want);
  }

  async computeAll(): Promise<void> {
    await this.computeItems(
      () => this.app.project,
      () => true,
    );
  }

  /**
   * Compute the case studies, mechanisms and analyses `want` names; measures and checks last (they use a mechanism's
   * result).
   */
  private async computeItems(project: () => ProjectInput, want: (key: string) => boolean): Promise<void> {
    const usesMechanism = (a: { type: string }): boolean => a.type === 'measure' || a.type === 'check';
    const p = project();
    await Promise.all([
      ...(p.caseStudies ?? []).filter((c) => want(caseStudyKey(c.id))).map((c) => this.computeCaseStudy(c.id)),
      ...(p.mechanisms ?? []).filter((m) => want(m.id)).map((m) => this.computeMechanism(m.id)),
      ...(p.analyses ?? []).filter((a) => !usesMechanism(a) && want(a.id)).map((a) => this.computeAnalysis(a.id)),
    ]);
    await Promise.all(
      (project().analyses ?? []).filter((a) => usesMechanism(a) && want(a.id)).map((a) => this.computeAnalysis(a.id)),
    );
  }

  /** Ask the host which restored results' channels it still holds (lib/kept-status.ts); a lost one says so. */
  private checkKeptChannels(): Promise<void> {
    const gen = this.generation;
    const project = this.app.project;
    // each channel is privacy-checked by the host at the domain and eps its mechanism claims
    const claimOf = (key: string): { domain: DomainInput; epsilon: number } | undefined => {
      const m = (project.mechanisms ?? []).find((x) => x.id === key);
      if (!m) return undefined;
      try {
        return { domain: domainOf(project, m.domain), epsilon: m.epsilon };
      } catch {
        return undefined;
      }
    };
    const asked = askKeptChannels(this.app.api, this.app.results, claimOf);
    return asked
      ? asked.then((statuses) => void (gen === this.generation && this.markNotKept(statuses)))
      : Promise.resolve();
  }

  /** Results whose channel the host does not hold: marked (not green, "not kept: compute again"), said once. */
  markNotKept(statuses: KeptStatus[]): void {
    const said = markNotKept(this.app.results, statuses);
    if (said) this.app.toasts.notify(said, 'bad');
  }
}
