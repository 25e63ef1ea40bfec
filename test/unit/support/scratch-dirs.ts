import { afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A maker of fresh temporary folders for a test file; every folder it made is removed after the file's tests. */
export function useScratchDirs(): () => string {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  return () => {
    const d = mkdtempSync(join(tmpdir(), 'mechstudio-test-'));
    dirs.push(d);
    return d;
  };
}
