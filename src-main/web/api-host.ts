import type { JobError, JobEvent } from '../../src-shared/protocol';

/**
 * Something that answers API calls by method name and pushes events
 * (progress, ...). The web server and the Electron IPC layer both drive the
 * same host, so the two modes run exactly the same code behind the API.
 */
export interface ApiHost {
  call(method: string, args: unknown[], session: HostSession): Promise<unknown>;
  /** Called when a client disconnects: cancel its jobs, forget its listeners. */
  closeSession?(session: HostSession): void;
}

export interface HostSession {
  readonly id: string;
  emit(channel: 'job', payload: JobEvent): void;
}

/** Anything thrown by a handler as a serialisable JobError (ApiError/MechError keep their code). */
export function toJobError(e: unknown): JobError {
  const codes = ['invalid-input', 'not-a-metric', 'too-large', 'not-applicable', 'infeasible', 'cancelled', 'internal', 'crashed'];
  if (e && typeof e === 'object') {
    const o = e as { code?: unknown; message?: unknown; detail?: unknown };
    const code = (typeof o.code === 'string' && codes.includes(o.code) ? o.code : 'internal') as JobError['code'];
    const err: JobError = { code, message: typeof o.message === 'string' ? o.message : String(e) };
    if (o.detail && typeof o.detail === 'object') err.detail = o.detail as Record<string, unknown>;
    return err;
  }
  return { code: 'internal', message: String(e) };
}

