/**
 * The app state as components use it (lib/state.svelte.ts): the edits that
 * cut across its rooms (an edit and its undo, another project, deleting,
 * renaming and duplicating an item) and the rooms components name (app.queue,
 * app.toasts, app.edits, app.compute, app.files) working on the app's project.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useSsrModules } from '../../support/ssr';
import { useMemoryStorage } from '../../support/memory-storage';
import { fakeApi, type FakeApi } from '../../support/fake-api';
import { doneResult, mechanismResult, townProject } from '../../support/state-fixture';
import { itemHash } from '../../../../src-renderer/lib/kept-results';
import { planDeletion, type DeletionPlan, type ItemKind } from '../../../../src-renderer/lib/project-model';
import type { ItemResult } from '../../../../src-renderer/lib/item-result';
import type { JobView } from '../../../../src-renderer/lib/job-view';
import type { Selection } from '../../../../src-renderer/lib/selection';
import type { JobRequest, JobResult, MechStudioApi, ProjectInput } from '../../../../src-shared/protocol/index';

// typed by hand: the module reaches the page's localStorage, which the tests' TypeScript setup (Node, no DOM) does not
// declare
interface App {
  project: ProjectInput;
  path: string | null;
  dirty: boolean;
  selection: Selection;
  results: Record<string, ItemResult>;
  queue: { jobs: JobView[]; run(request: JobRequest, label: string): Promise<JobResult> };
  toasts: { toast: { text: string; kind: string } | null; notify(text: string, kind?: string): void };
  edits: { canUndo: boolean; canRedo: boolean; editVersion: number };
  compute: { computeAnalysis(id: string): Promise<void> };
  files: {
    lastExample: string | null;
    lastProject(): { path: string } | { example: string } | null;
  };
  dispose(): void;
  markDirty(): void;
  undo(): void;
  redo(): void;
  setProject(project: ProjectInput, path: string | null): void;
  deleteItems(plan: DeletionPlan): void;
  renameItem(kind: ItemKind, from: string, to: string): string | null;
  duplicateItem(kind: ItemKind, id: string): void;
}

const PATH = '/src-renderer/lib/state.svelte.ts';
const ssr = useSsrModules([PATH]);
const storage = useMemoryStorage();
let apps: App[] = [];
afterEach(() => {
  for (const a of apps) a.dispose();
  apps = [];
});

function open(
  f: FakeApi = fakeApi(),
  project: ProjectInput = townProject(),
  path: string | null = '/p/town.json',
): App {
  const AppState = (ssr.module(PATH) as { AppState: new (api: MechStudioApi) => App }).AppState;
  const app = new AppState(f.api);
  apps.push(app);
  app.setProject(project, path);
  return app;
}

describe('app state', () => {
  it('undo restores the project before the edit, the result computed for it is current again, and redo the edit', () => {
    const app = open();
    app.results.pl = doneResult(itemHash(app.project, 'pl'));
    app.project.mechanisms![0]!.epsilon = 2;
    app.markDirty();
    expect([app.dirty, app.edits.canUndo, app.results.pl!.stale]).toEqual([true, true, true]);
    // the edit is in the autosave
    expect(JSON.parse(storage.items.get('mechstudio.autosave.v1')!).project.mechanisms[0].epsilon).toBe(2);
    app.undo();
    expect([
      app.project.mechanisms![0]!.epsilon,
      app.results.pl!.stale,
      app.edits.canUndo,
      app.edits.canRedo,
      app.edits.editVersion,
    ]).toEqual([1, false, false, true, 1]);
    app.redo();
    expect([app.project.mechanisms![0]!.epsilon, app.results.pl!.stale, app.edits.editVersion]).toEqual([2, true, 2]);
  });

  it('an undo that removes the selected item moves the selection to the default one', () => {
    const app = open();
    app.duplicateItem('analysis', 'reg');
    expect(app.selection).toEqual({ kind: 'analysis', id: 'reg-copy' });
    app.undo();
    expect([app.project.analyses!.map((a) => a.id), app.selection]).toEqual([
      ['m', 'reg'],
      { kind: 'mechanism', id: 'pl' },
    ]);
  });

  it('another project brings its kept results, forgets the undo steps and the autosave, keeps running jobs and drops their late results', async () => {
    const f = fakeApi();
    const app = open(f);
    app.markDirty();
    const late = app.compute.computeAnalysis('reg');
    await Promise.resolve();
    expect(app.queue.jobs.map((j) => j.status)).toEqual(['running']);
    const saved = {
      ...townProject(),
      results: { pl: { hash: itemHash(townProject(), 'pl')!, result: mechanismResult() } },
    } as ProjectInput;
    app.setProject(saved, '/p/other.json');
    expect([
      app.path,
      app.dirty,
      app.edits.canUndo,
      app.selection,
      storage.items.has('mechstudio.autosave.v1'),
    ]).toEqual(['/p/other.json', false, false, { kind: 'mechanism', id: 'pl' }, false]);
    expect(app.results).toEqual({
      pl: { status: 'done', result: mechanismResult(), hash: itemHash(townProject(), 'pl'), stale: false },
    });
    expect(app.files.lastProject()).toEqual({ path: '/p/other.json' });
    expect(app.queue.jobs.length).toBe(1);
    f.emit({ kind: 'result', jobId: 'job-1', result: { type: 'regular' } as unknown as JobResult, elapsedMs: 1 });
    await late;
    expect(Object.keys(app.results)).toEqual(['pl']);
  });

  it('deleting a mechanism takes its analyses and their results, cancels their running jobs, and moves the selection', () => {
    const f = fakeApi();
    const app = open(f);
    app.results = { pl: doneResult('h'), m: { status: 'running', jobId: 'job-7' }, reg: doneResult('r') };
    app.deleteItems(planDeletion(app.project, 'mechanism', 'pl'));
    expect([Object.keys(app.results), f.cancelled, app.selection, app.dirty]).toEqual([
      ['reg'],
      ['job-7'],
      { kind: 'domain', id: 'town' },
      true,
    ]);
  });

  it('a rename carries the result and the selection; a bad name is refused in plain words and changes nothing', () => {
    const app = open();
    app.results.pl = doneResult('h');
    expect(app.renameItem('mechanism', 'pl', 'laplace2')).toBeNull();
    expect([Object.keys(app.results), app.selection, app.project.analyses![0]]).toEqual([
      ['laplace2'],
      { kind: 'mechanism', id: 'laplace2' },
      { id: 'm', type: 'measure', mechanism: 'laplace2', prior: 'pop' },
    ]);
    expect(app.renameItem('mechanism', 'laplace2', 'has space')).toBe(
      'use letters, digits, _ . - only (no spaces): the name also names output files',
    );
  });

  it('a duplicate shares a finished result (same inputs, same hash) but not a running one', () => {
    const app = open();
    const h = itemHash(app.project, 'pl');
    app.results = { pl: doneResult(h), reg: { status: 'running' } };
    app.duplicateItem('mechanism', 'pl');
    app.duplicateItem('analysis', 'reg');
    // the copy's inputs hash as the original's: its result is current
    expect(app.results['pl-copy']).toEqual({ ...doneResult(h), stale: false });
    expect('reg-copy' in app.results).toBe(false);
  });

  it('the rooms components name work on the app: a toast, a job row, the example a reload returns to', async () => {
    const app = open(fakeApi({ answer: () => ({ type: 'rows' }) as unknown as JobResult }));
    app.toasts.notify('saved', 'ok');
    expect(app.toasts.toast).toEqual({ text: 'saved', kind: 'ok' });
    await app.queue.run({ type: 'rows', channelRef: 'c', from: 0, count: 1 } as never, 'rows');
    expect(app.queue.jobs.map((j) => [j.label, j.status])).toEqual([['rows', 'done']]);
    app.queue.jobs = [];
    app.files.lastExample = 'voting';
    app.setProject(townProject(), null);
    expect([app.queue.jobs, app.files.lastProject()]).toEqual([[], { example: 'voting' }]);
  });
});
