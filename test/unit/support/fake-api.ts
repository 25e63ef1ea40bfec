/**
 * A MechStudioApi for the renderer's state tests: jobs get ids 'job-1',
 * 'job-2', ... and are answered by `answer` (a result, or a JobError), or
 * left running for the test to settle with emit(); cancel, stop and the
 * host's kept-channel question are recorded.
 */
import type {
  ChannelStatus,
  JobError,
  JobEvent,
  JobRequest,
  JobResult,
  MechStudioApi,
  RecentProject,
} from '../../../src-shared/protocol/index';

export interface FakeApi {
  api: MechStudioApi;
  submitted: JobRequest[];
  cancelled: string[];
  stopped: string[];
  /** Send a job event to the page's listeners. */
  emit(e: JobEvent): void;
}

export interface FakeApiOptions {
  /** How a job ends (its result, or its error), or undefined to leave it running. */
  answer?: (request: JobRequest, jobId: string) => JobResult | JobError | undefined;
  /** Which channels the host keeps (every one unless said). */
  channels?: (refs: string[]) => ChannelStatus[];
  recent?: () => RecentProject[];
}

export function fakeApi(o: FakeApiOptions = {}): FakeApi {
  const listeners: ((e: JobEvent) => void)[] = [];
  const out: FakeApi = {
    submitted: [],
    cancelled: [],
    stopped: [],
    emit: (e) => listeners.forEach((l) => l(e)),
    api: {
      submit: (request: JobRequest) => {
        out.submitted.push(request);
        const jobId = `job-${out.submitted.length}`;
        const a = o.answer?.(request, jobId);
        // events before the id are replayed to the job's runJob
        if (a && 'type' in a) out.emit({ jobId, kind: 'result', result: a, elapsedMs: 5 } as JobEvent);
        else if (a) out.emit({ jobId, kind: 'error', error: a, elapsedMs: 5 } as JobEvent);
        return Promise.resolve(jobId);
      },
      cancel: (jobId: string) => (out.cancelled.push(jobId), Promise.resolve(true)),
      stop: (jobId: string) => (out.stopped.push(jobId), Promise.resolve(true)),
      onJobEvent: (l: (e: JobEvent) => void) => (listeners.push(l), () => listeners.splice(listeners.indexOf(l), 1)),
      project: {
        channels: (refs: string[]) =>
          Promise.resolve(o.channels ? o.channels(refs) : refs.map((channelRef) => ({ channelRef, kept: true }))),
        recent: () => (o.recent ? Promise.resolve(o.recent()) : Promise.reject(new Error('no recent list'))),
      },
    } as unknown as MechStudioApi,
  };
  return out;
}
