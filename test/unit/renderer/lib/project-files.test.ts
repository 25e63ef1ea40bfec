/**
 * The open project as files see it (lib/project-files.svelte.ts): the autosave
 * of unsaved edits with their results, the project a reload returns to, what
 * Save writes, and the recent list.
 */
import { describe, expect, it } from 'vitest';
import { useSsrModules } from '../../support/ssr';
import { useMemoryStorage } from '../../support/memory-storage';
import { fakeApi } from '../../support/fake-api';
import { doneResult, townProject } from '../../support/state-fixture';
import { itemHash } from '../../../../src-renderer/lib/kept-results';
import type { ItemResult } from '../../../../src-renderer/lib/item-result';
import type { MechStudioApi, ProjectInput, RecentProject } from '../../../../src-shared/protocol/index';

// typed by hand: the module reaches the page's localStorage, which the tests' TypeScript setup (Node, no DOM) does not
// declare
interface Host {
  api: MechStudioApi;
  project: ProjectInput;
  path: string | null;
  results: Record<string, ItemResult>;
  toasts: { notify(text: string, kind?: string): void };
}
interface Files {
  recent: RecentProject[];
  lastExample: string | null;
  refreshRecent(): Promise<void>;
  snapshot(): ProjectInput;
  snapshotWithResults(): ProjectInput;
  rememberLast(path: string | null): void;
  savedAs(path: string): void;
  lastProject(): { path: string } | { example: string } | null;
  autosave(): void;
  clearAutosave(): void;
  pendingRecovery(): { savedAt: string; path: string | null; project: ProjectInput } | null;
}

const PATH = '/src-renderer/lib/project-files.svelte.ts';
const ssr = useSsrModules([PATH]);
const storage = useMemoryStorage();

function files(path: string | null = '/p/town.json'): { host: Host; files: Files; said: string[] } {
  const said: string[] = [];
  const project = townProject();
  const host: Host = {
    api: fakeApi().api,
    project,
    path,
    results: { pl: doneResult(itemHash(project, 'pl')) },
    toasts: { notify: (t) => void said.push(t) },
  };
  const ProjectFiles = (ssr.module(PATH) as { ProjectFiles: new (h: Host) => Files }).ProjectFiles;
  return { host, files: new ProjectFiles(host), said };
}

describe('project files', () => {
  it('autosave writes the project under its path with its results; a new window gets it back; clearing forgets it', () => {
    const { host, files: f } = files();
    expect(f.pendingRecovery()).toBeNull();
    f.autosave();
    const back = f.pendingRecovery()!;
    expect(back.path).toBe('/p/town.json');
    expect(back.project.mechanisms).toEqual(host.project.mechanisms);
    expect(back.project.results?.pl?.hash).toBe(itemHash(host.project, 'pl'));
    f.clearAutosave();
    expect(f.pendingRecovery()).toBeNull();
  });

  it('a storage too full for the results autosaves the project alone (the latest edits, not an older autosave)', () => {
    const { host, files: f } = files(null);
    storage.quota =
      JSON.stringify({ savedAt: new Date().toISOString(), path: null, project: host.project }).length + 10;
    f.autosave();
    const back = f.pendingRecovery()!;
    expect([back.path, back.project.results, back.project.name]).toEqual([null, undefined, 'v']);
  });

  it('a reload returns to the last file opened or saved, else to the example it came from', () => {
    const { files: f } = files();
    expect(f.lastProject()).toBeNull();
    f.lastExample = 'voting';
    f.rememberLast(null);
    expect([f.lastProject(), f.lastExample]).toEqual([{ example: 'voting' }, null]);
    f.savedAs('/p/saved.json');
    expect(f.lastProject()).toEqual({ path: '/p/saved.json' });
    // a project neither from a file nor an example: a reload opens the default example
    f.rememberLast(null);
    expect(f.lastProject()).toBeNull();
  });

  it('Save writes the results with the project; the snapshot is a copy without them', () => {
    const { host, files: f, said } = files();
    const saved = f.snapshotWithResults();
    expect(Object.keys(saved.results ?? {})).toEqual(['pl']);
    expect(said).toEqual([]);
    const copy = f.snapshot();
    expect([copy.results, copy === host.project, copy.mechanisms]).toEqual([undefined, false, host.project.mechanisms]);
  });

  it('the recent list is the host’s, empty when the host cannot say', async () => {
    const { host, files: f } = files();
    await f.refreshRecent();
    expect(f.recent).toEqual([]);
    host.api = fakeApi({ recent: () => [{ path: '/p/a.json', name: 'a' } as RecentProject] }).api;
    await f.refreshRecent();
    expect(f.recent.map((r) => r.path)).toEqual(['/p/a.json']);
  });
});
