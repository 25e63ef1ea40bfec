import type { JobEvent } from '../../src-shared/protocol';

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

/** Anything thrown by a handler as a serialisable JobError: the protocol's one conversion. */
export { toJobError } from '../../src-shared/protocol/index';
