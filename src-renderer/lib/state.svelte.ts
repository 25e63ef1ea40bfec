/**
 * Application state (Svelte 5 runes) as the components use it: the open
 * project, its selection and its results, composed with the rooms that do the
 * work, each in its own module: the jobs panel (job-queue), toasts, undo and
 * editors' drafts (edit-history), computing (compute), which results are
 * stale (stale-results), and files and autosave (project-files). The edits
 * that cut across rooms (an edit, an undo, another project, deleting or
 * renaming an item) are here.
 */
import type { MechStudioApi, ProjectInput } from '../../src-shared/protocol/index';
import {
  applyDeletion,
  duplicateItem,
  newProject,
  renameItem,
  type DeletionPlan,
  type ItemKind,
} from './project-model';
import { restoreResults } from './kept-results';
import { pruneStudyItems, renameInStudyItems } from './study-items';
import type { ItemResult } from './item-result';
import { JobQueue } from './job-queue.svelte';
import { Toasts } from './toasts.svelte';
import { EditHistory } from './edit-history.svelte';
import { Compute, caseStudyKey } from './compute.svelte';
import { ProjectFiles } from './project-files.svelte';
import { invalidate, refreshStale } from './stale-results';
import { defaultSelection, selectionHeld, type Selection } from './selection';
import { messageOf } from '../../src-shared/errors';

export class AppState {
  api: MechStudioApi;
  project = $state<ProjectInput>(newProject());
  path = $state<string | null>(null);
  dirty = $state(false);
  selection = $state<Selection>(null);
  results = $state<Record<string, ItemResult>>({});
  mode = $state<'electron' | 'web' | 'cli'>('web');
  /** Worker threads of the host's pool (AppInfo.workers): the default lpThreads of an optimal LP. */
  workers = $state<number | null>(null);

  readonly toasts = new Toasts();
  readonly queue: JobQueue;
  readonly edits = new EditHistory();
  readonly compute = new Compute(this);
  readonly files = new ProjectFiles(this);
  /**
   * Opens asked for so far (beginOpen) and projects set (setProject): an open's late reply applies only while it is the
   * latest.
   */
  private opens = 0;

  constructor(api: MechStudioApi) {
    this.api = api;
    this.queue = new JobQueue(api);
  }

  dispose(): void {
    this.queue.dispose();
  }

  // ---------- results and their inputs ----------

  /**
   * Mark results whose inputs no longer hash the same as stale (current again when an edit is undone;
   * lib/stale-results.ts).
   */
  refreshStale(): void {
    refreshStale(this.project, this.results);
  }

  /** An item's inputs changed: its result and the results that depend on it are stale (lib/stale-results.ts). */
  invalidate(kind: 'domain' | 'prior' | 'mechanism' | 'analysis', id: string): void {
    invalidate(this.project, this.results, kind, id);
  }

  // ---------- edits, undo and redo ----------

  /** The project was edited: results follow, the edit is an undo step and goes into the autosave. */
  markDirty(): void {
    this.dirty = true;
    this.refreshStale();
    this.edits.record(this.project);
    this.files.autosave();
  }

  /** Undo the last edit (results follow by hash: a result computed for the restored inputs is current again). */
  undo(): void {
    const p = this.edits.undo();
    if (p) this.restoreEdit(p);
  }

  redo(): void {
    const p = this.edits.redo();
    if (p) this.restoreEdit(p);
  }

  private restoreEdit(p: ProjectInput): void {
    this.project = p;
    this.dirty = true;
    this.refreshStale();
    if (!selectionHeld(p, this.selection)) this.selection = defaultSelection(p);
    this.files.autosave();
  }

  /**
   * Delete an item and what its plan takes with it (project-model planDeletion):
   * their results go, running jobs of removed items are cancelled, items whose
   * prior was cleared become stale, and the selection moves to a survivor.
   */
  deleteItems(plan: DeletionPlan): void {
    const removedKeys = [plan.target, ...plan.cascade].map((r) => (r.kind === 'caseStudy' ? caseStudyKey(r.id) : r.id));
    applyDeletion(this.project, plan);
    pruneStudyItems(this.project);
    for (const key of removedKeys) this.compute.forget(key);
    for (const d of plan.detach) this.invalidate(d.kind === 'mechanism' ? 'mechanism' : 'analysis', d.id);
    if (!selectionHeld(this.project, this.selection)) this.selection = defaultSelection(this.project);
    this.markDirty();
  }

  /** Rename an item (project-model renameItem); its result follows it. Returns a problem in plain words, or null. */
  renameItem(kind: ItemKind, from: string, to: string): string | null {
    let id: string;
    try {
      id = renameItem(this.project, kind, from, to);
      renameInStudyItems(this.project, kind, from, id);
    } catch (e) {
      return messageOf(e);
    }
    if (id !== from) {
      const key = (x: string): string => (kind === 'caseStudy' ? caseStudyKey(x) : x);
      this.compute.rename(key(from), key(id));
      if (this.selection?.kind === kind && this.selection.id === from) this.selection = { kind, id };
    }
    this.markDirty();
    return null;
  }

  /** Duplicate an item; a finished result is shared (same inputs, same hash). */
  duplicateItem(kind: ItemKind, id: string): void {
    const copy = duplicateItem(this.project, kind, id);
    const key = (x: string): string => (kind === 'caseStudy' ? caseStudyKey(x) : x);
    const r = this.results[key(id)];
    if (r?.status === 'done') this.results[key(copy)] = JSON.parse(JSON.stringify(r)) as ItemResult;
    this.selection = { kind, id: copy };
    this.markDirty();
  }

  // ---------- another project ----------

  /**
   * An open (a file, an upload, an example, the start-up's return to the last project) is about to wait for the host:
   * its ticket. When the reply comes, isLatestOpen(ticket) says whether it still applies: an open asked for later,
   * or a project set meanwhile (New), wins, so a slow start-up reopen never replaces what the user opened since.
   */
  beginOpen(): number {
    return ++this.opens;
  }

  isLatestOpen(ticket: number): boolean {
    return ticket === this.opens;
  }

  /**
   * Open a project (results kept in the file come back as they were saved: stale when their inputs no longer hash the
   * same). The autosave of unsaved edits is cleared, except by the start-up open (`keepAutosave`), which opens a
   * project while the autosave is still offered back: it stays until the user recovers or discards it.
   */
  setProject(project: ProjectInput, path: string | null, opts: { keepAutosave?: boolean } = {}): void {
    const { project: items, held } = restoreResults(project);
    // opens still waiting for the host were asked for before this project: they no longer apply
    this.opens++;
    this.project = items;
    this.path = path;
    this.dirty = false;
    this.results = held;
    this.edits.reset(items);
    this.files.rememberLast(path);
    this.queue.keepLive();
    // a project with case studies (the built-in examples) opens on its first one
    this.selection = defaultSelection(items);
    if (!opts.keepAutosave) this.files.clearAutosave();
    // results still on their way belong to the old project: dropped
    this.compute.opened();
  }
}
