import type { JobBackend } from '../../../src-main/host/fair-jobs';
import type { JobEvent, JobRequest } from '../../../src-shared/protocol';

/** The stand-in pool's view of its jobs, by the `tag` each request carries (`#n` for the n-th one without). */
export interface FifoPool extends JobBackend {
  /** Tags in the order the jobs were submitted, started and ended. */
  readonly submitted: string[];
  readonly started: string[];
  readonly completed: string[];
  /** Tags of the jobs running now. */
  running(): string[];
  /** End the running job of this tag (its final event is an 'error' "done"); the next queued one starts. */
  finish(tag: string): void;
}

/**
 * A FIFO pool of `workers` threads (like piscina's): a job starts when a thread is free and ends when the test calls
 * `finish` (ends 'held'), or one macrotask after it starts ('next-macrotask').
 */
export function fifoPool(workers: number, ends: 'held' | 'next-macrotask' = 'held'): FifoPool {
  const listeners = new Set<(e: JobEvent) => void>();
  const queue: string[] = [];
  const submitted: string[] = [];
  const started: string[] = [];
  const completed: string[] = [];
  const running = new Map<string, string>(); // job id -> tag
  const tagOf = new Map<string, string>();
  let seq = 0;
  const emit = (e: JobEvent): void => listeners.forEach((l) => l(e));
  const end = (id: string): void => {
    running.delete(id);
    completed.push(tagOf.get(id)!);
    emit({ kind: 'error', jobId: id, error: { code: 'internal', message: 'done' }, elapsedMs: 1 });
    pump();
  };
  const pump = (): void => {
    while (running.size < workers && queue.length > 0) {
      const id = queue.shift()!;
      running.set(id, tagOf.get(id)!);
      started.push(tagOf.get(id)!);
      if (ends === 'next-macrotask') setImmediate(() => end(id));
    }
  };
  return {
    workers,
    submitted,
    started,
    completed,
    running: () => [...running.values()],
    submit: (r: JobRequest) => {
      const id = `inner-${++seq}`;
      const tag = (r as { tag?: string }).tag ?? `#${seq}`;
      tagOf.set(id, tag);
      submitted.push(tag);
      queue.push(id);
      emit({ kind: 'queued', jobId: id, type: r.type });
      pump();
      return id;
    },
    finish: (tag: string) => {
      const id = [...running].find(([, t]) => t === tag)?.[0];
      if (id === undefined) throw new Error(`${tag} is not running`);
      end(id);
    },
    cancel: () => false,
    onJobEvent: (l) => (listeners.add(l), () => listeners.delete(l)),
  };
}
