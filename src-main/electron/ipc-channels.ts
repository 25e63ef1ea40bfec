/** IPC channel names shared by main.ts and preload.ts (strings only: the sandboxed preload imports nothing else). */
export const IPC = {
  /** invoke(method, params) -> { ok: true, value } | { ok: false, error } */
  call: 'mechstudio:call',
  /** main -> renderer: a JobEvent */
  job: 'mechstudio:job',
  /** main -> renderer: a menu command string */
  menu: 'mechstudio:menu',
  /** renderer -> main: (dirty, title) */
  dirty: 'mechstudio:dirty',
} as const;
