/**
 * The open project as files see it: what Save writes (with its results), the
 * recent projects, the project a reload returns to, and the autosave of
 * unsaved edits that a new window offers back (lib/browser-storage.ts).
 */
import type { MechStudioApi, ProjectInput, RecentProject } from '../../src-shared/protocol/index';
import {
  type Autosaved,
  type LastProject,
  clearAutosave,
  lastProject,
  pendingAutosave,
  rememberLastProject,
  writeAutosave,
} from './browser-storage';
import { projectWithResults } from './kept-results';
import type { ItemResult } from './item-result';
import type { Toasts } from './toasts.svelte';

/** Most characters of an autosaved project with its results (localStorage holds about 5 MB per origin). */
const AUTOSAVE_RESULTS_BYTES = 2 * 2 ** 20;

/** What the files need of the app: the open project, its path and results, and its toasts. */
interface FilesHost {
  readonly api: MechStudioApi;
  readonly project: ProjectInput;
  readonly path: string | null;
  readonly results: Record<string, ItemResult>;
  readonly toasts: Pick<Toasts, 'notify'>;
}

export class ProjectFiles {
  recent = $state<RecentProject[]>([]);
  /** Example name to note as the last project (set by the caller before setProject of an example). */
  lastExample: string | null = null;

  constructor(private readonly app: FilesHost) {}

  async refreshRecent(): Promise<void> {
    try {
      this.recent = await this.app.api.project.recent();
    } catch {
      this.recent = [];
    }
  }

  snapshot(): ProjectInput {
    return JSON.parse(JSON.stringify(this.app.project)) as ProjectInput;
  }

  /** The project as saved: with its computed results and their input hashes (lib/kept-results.ts). */
  snapshotWithResults(): ProjectInput {
    const { project, skipped } = projectWithResults(this.app.project, this.app.results);
    if (skipped.length)
      this.app.toasts.notify(
        `saved without the results of ${skipped.join(', ')} (too large to keep in the file; Compute makes them again)`,
        'info',
      );
    return project;
  }

  /** Note a project opened (from `path`, or the example named just before) as the one a reload returns to. */
  rememberLast(path: string | null): void {
    rememberLastProject(path, this.lastExample);
    this.lastExample = null;
  }

  /** Note a save under a path as the last project. */
  savedAs(path: string): void {
    this.rememberLast(path);
  }

  lastProject(): LastProject | null {
    return lastProject();
  }

  /**
   * The unsaved project, with its results (within AUTOSAVE_RESULTS_BYTES, LPs first): a recovered project shows
   * an LP's result again, its channel read back from the host's channel cache (the host writes every kept
   * channel there as it is kept).
   */
  autosave(): void {
    writeAutosave(
      this.app.path,
      projectWithResults(this.app.project, this.app.results, AUTOSAVE_RESULTS_BYTES).project,
      this.app.project,
    );
  }

  clearAutosave(): void {
    clearAutosave();
  }

  pendingRecovery(): Autosaved | null {
    return pendingAutosave();
  }
}
