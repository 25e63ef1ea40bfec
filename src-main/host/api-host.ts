import { ApiError, type JobError, type JobEvent } from '../../src-shared/protocol';

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

/** Native file dialogs (Electron); absent in web mode, where paths are typed in the app. */
export interface Dialogs {
  openProject(): Promise<string | null>;
  saveProject(suggested: string): Promise<string | null>;
  saveFile(suggested: string, filters: { name: string; extensions: string[] }[]): Promise<string | null>;
  chooseDir(): Promise<string | null>;
}

/** Refuse an API call with a typed error (the page shows its message). */
export function fail(code: JobError['code'], message: string): never {
  throw new ApiError({ code, message });
}
