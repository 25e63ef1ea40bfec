/**
 * A localStorage for renderer tests in Node: a Map behind the Storage calls
 * the page uses, with an optional quota (a setItem over it throws, as a full
 * browser storage does). Installed on globalThis before each test, removed after.
 */
import { afterEach, beforeEach } from 'vitest';

export interface MemoryStorage {
  items: Map<string, string>;
  /** Most characters a stored value may have (unlimited unless set). */
  quota: number;
}

export function useMemoryStorage(): MemoryStorage {
  const out: MemoryStorage = { items: new Map(), quota: Infinity };
  beforeEach(() => {
    out.items.clear();
    out.quota = Infinity;
    (globalThis as Record<string, unknown>).localStorage = {
      getItem: (k: string) => out.items.get(k) ?? null,
      setItem: (k: string, v: string) => {
        if (v.length > out.quota) throw new Error('QuotaExceededError');
        out.items.set(k, v);
      },
      removeItem: (k: string) => void out.items.delete(k),
    };
  });
  afterEach(() => {
    delete (globalThis as Record<string, unknown>).localStorage;
  });
  return out;
}
