/**
 * Computing the project's items (lib/compute.svelte.ts) against a fake app:
 * what is submitted, what result is kept under which key with which hash,
 * and what a failure, a draft, another project or a lost kept channel do.
 */
import { describe, expect, it } from 'vitest';
import { useSsrModules } from '../../support/ssr';
import { doneResult, mechanismResult, townProject } from '../../support/state-fixture';
import { itemHash } from '../../../../src-renderer/lib/kept-results';
import { channelSource } from '../../../../src-shared/project/item-requests';
import type { ItemResult } from '../../../../src-renderer/lib/item-result';
import type * as ComputeModule from '../../../../src-renderer/lib/compute.svelte';
import type {
  ChannelStatus,
  CheckResult,
  JobError,
  JobRequest,
  JobResult,
  MechStudioApi,
  ProjectInput,
} from '../../../../src-shared/protocol/index';

const PATH = '/src-renderer/lib/compute.svelte.ts';
const ssr = useSsrModules([PATH]);
const mod = (): typeof ComputeModule => ssr.module(PATH) as typeof ComputeModule;

const checkResult = {
  type: 'check',
  epsilon: 1,
  effectiveEpsilon: 0.9,
  private: true,
  violations: [],
} as unknown as CheckResult;
const measureResult = { type: 'measure' } as unknown as JobResult;
type Answer = (req: JobRequest) => Promise<JobResult>;

/** A fake app: answers jobs with `answer`, records what is submitted, said and autosaved. */
function fakeHost(answer: Answer, o: { channels?: (refs: string[]) => ChannelStatus[] } = {}) {
  const host = {
    // asked by reference, or with the domain and eps the result claims (the host privacy-checks those)
    api: {
      project: {
        channels: (asked: (string | { channelRef: string })[]) =>
          Promise.resolve(o.channels?.(asked.map((a) => (typeof a === 'string' ? a : a.channelRef))) ?? []),
      },
    } as unknown as MechStudioApi,
    project: townProject() as ProjectInput,
    results: {} as Record<string, ItemResult>,
    dirty: false,
    drafts: {} as Record<string, string>,
    submitted: [] as JobRequest[],
    said: [] as [string, string][],
    autosaves: 0,
    cancelled: [] as string[],
    queue: {
      run: (req: JobRequest, _label: string, onId?: (id: string) => void): Promise<JobResult> => {
        host.submitted.push(req);
        onId?.(`job-${host.submitted.length}`);
        return answer(req);
      },
      cancel: (jobId: string) => (host.cancelled.push(jobId), Promise.resolve()),
    },
    toasts: { notify: (text: string, kind = 'info') => void host.said.push([kind, text]) },
    edits: { draftBlock: (d: string | undefined) => (d && host.drafts[d] ? `draft on ${d}` : null) },
    files: { autosave: () => void host.autosaves++ },
  };
  return { host, compute: new (mod().Compute)(host) };
}

const byType =
  (other: (req: JobRequest) => JobResult | JobError = () => measureResult): Answer =>
  (req) => {
    const r = req.type === 'mechanism' ? mechanismResult() : req.type === 'check' ? checkResult : other(req);
    return 'type' in r ? Promise.resolve(r) : Promise.reject(r);
  };
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('computing items', () => {
  it('a mechanism is computed once for concurrent callers, kept with its inputs’ hash and construction, then privacy-checked', async () => {
    const { host, compute } = fakeHost(byType());
    await Promise.all([compute.computeMechanism('pl'), compute.computeMechanism('pl')]);
    await settle();
    expect(host.submitted.map((r) => r.type)).toEqual(['mechanism', 'check']);
    const r = host.results.pl!;
    expect([r.status, r.hash, r.check]).toEqual(['done', itemHash(host.project, 'pl'), checkResult]);
    expect(r.source).toEqual(channelSource(host.project, host.project.mechanisms![0]!, undefined));
  });

  it('a measure computes its mechanism first; measures and checks run after every other item in Compute all', async () => {
    const { host, compute } = fakeHost(byType());
    await compute.computeAll();
    expect(host.submitted.map((r) => r.type)).toEqual(['mechanism', 'regular', 'check', 'measure']);
    expect(Object.keys(host.results).sort()).toEqual(['m', 'pl', 'reg']);
    expect(host.results.m!.hash).toBe(itemHash(host.project, 'm'));
  });

  it('a failed recompute keeps the previous result, marked with the failure, and says so', async () => {
    const { host, compute } = fakeHost(() =>
      Promise.reject({ code: 'crashed', message: 'the worker stopped' } as JobError),
    );
    host.results.reg = doneResult(itemHash(host.project, 'reg'));
    await compute.computeAnalysis('reg');
    expect(host.results.reg).toMatchObject({ status: 'done', stale: false, failed: 'the worker stopped' });
    expect(host.said).toEqual([['bad', 'Compute failed: the worker stopped. The previous result is kept.']]);
    // without an earlier result the error is the result
    delete host.results.reg;
    await compute.computeAnalysis('reg');
    expect(host.results.reg).toMatchObject({ status: 'error', error: { code: 'crashed' } });
  });

  it('nothing is computed on a domain with an unapplied draft; the reason is said', async () => {
    const { host, compute } = fakeHost(byType());
    host.drafts.town = 'rows must be ≥ 1';
    await compute.computeMechanism('pl');
    await compute.computeAnalysis('reg');
    expect([host.submitted, host.results]).toEqual([[], {}]);
    expect(host.said).toEqual([
      ['bad', 'draft on town'],
      ['bad', 'draft on town'],
    ]);
  });

  it('a result that arrives after another project opened is dropped', async () => {
    let finish!: (r: JobResult) => void;
    const { host, compute } = fakeHost((req) =>
      req.type === 'regular' ? new Promise((r) => (finish = r)) : byType()(req),
    );
    const running = compute.computeAnalysis('reg');
    expect(host.results.reg).toEqual({ status: 'running', jobId: 'job-1' });
    host.results = {};
    compute.opened();
    finish(measureResult);
    await running;
    expect(host.results).toEqual({});
  });

  it("an LP's result goes into the autosave of an unsaved edit", async () => {
    const { host, compute } = fakeHost((req) =>
      Promise.resolve(req.type === 'mechanism' ? mechanismResult(true, 'ref-1') : checkResult),
    );
    host.dirty = true;
    await compute.computeMechanism('pl');
    expect(host.autosaves).toBe(1);
  });

  it('restored results whose kept channel is gone are marked and said once; Compute missing waits for the answer', async () => {
    const { host, compute } = fakeHost(byType(), {
      channels: (refs) => refs.map((channelRef) => ({ channelRef, kept: false, problem: 'the cache was cleared' })),
    });
    host.project.analyses = [];
    host.results = { pl: doneResult(itemHash(host.project, 'pl'), mechanismResult(true, 'ref-1')) };
    compute.opened();
    await compute.computeMissing();
    expect(host.results.pl!.notKept).toBe('the cache was cleared');
    expect(host.said).toEqual([['bad', "not kept: 'pl': the cache was cleared"]]);
    // shown as it is (not computed again, nor checked) until the user computes it
    expect(host.submitted).toEqual([]);
  });

  it('forget cancels a running job and drops the result; rename moves it', () => {
    const { host, compute } = fakeHost(byType());
    host.results = { pl: { status: 'running', jobId: 'job-9' }, reg: doneResult('h') };
    compute.forget('pl');
    compute.rename('reg', 'reg2');
    expect([host.cancelled, host.results]).toEqual([['job-9'], { reg2: doneResult('h') }]);
  });
});
