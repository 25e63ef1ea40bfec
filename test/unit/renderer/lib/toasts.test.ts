/** The toast (lib/toasts.svelte.ts): the latest message wins and expires, a failure stays longer. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useSsrModules } from '../../support/ssr';
import type * as ToastsModule from '../../../../src-renderer/lib/toasts.svelte';

const PATH = '/src-renderer/lib/toasts.svelte.ts';
const ssr = useSsrModules([PATH]);
const Toasts = (): typeof ToastsModule.Toasts => (ssr.module(PATH) as typeof ToastsModule).Toasts;

describe('toasts', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('a toast expires after 3.5 s', () => {
    const t = new (Toasts())();
    t.notify('saved', 'ok');
    expect(t.toast).toEqual({ text: 'saved', kind: 'ok' });
    vi.advanceTimersByTime(3499);
    expect(t.toast).toEqual({ text: 'saved', kind: 'ok' });
    vi.advanceTimersByTime(1);
    expect(t.toast).toBeNull();
  });

  it('a failure stays 8 s; a newer toast replaces it with its own time; info is the default kind', () => {
    const t = new (Toasts())();
    t.notify('Compute failed', 'bad');
    vi.advanceTimersByTime(7999);
    expect(t.toast?.kind).toBe('bad');
    t.notify('opened');
    expect(t.toast).toEqual({ text: 'opened', kind: 'info' });
    // the failure's timer is gone: the new toast lives its own 3.5 s
    vi.advanceTimersByTime(3499);
    expect(t.toast?.text).toBe('opened');
    vi.advanceTimersByTime(1);
    expect(t.toast).toBeNull();
  });

  it('dispose leaves no timer behind', () => {
    const t = new (Toasts())();
    t.notify('x');
    t.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});
