/**
 * The toast: one short message at the foot of the window (the latest one
 * wins), gone after a few seconds, longer for a failure.
 */
export type ToastKind = 'ok' | 'bad' | 'info';
export interface Toast {
  text: string;
  kind: ToastKind;
}

/** How long a toast stays on screen (a failure is read, not glanced at). */
export const TOAST_MS: Record<ToastKind, number> = { ok: 3500, info: 3500, bad: 8000 };

export class Toasts {
  toast = $state<Toast | null>(null);
  private timer: ReturnType<typeof setTimeout> | undefined;

  notify(text: string, kind: ToastKind = 'info'): void {
    this.toast = { text, kind };
    clearTimeout(this.timer);
    this.timer = setTimeout(() => (this.toast = null), TOAST_MS[kind]);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
