/**
 * Undo/redo of project edits (lib/history.ts snapshots, one per edit) and the
 * editors' drafts that cannot be applied: while a domain's editor holds one,
 * nothing on that domain is computed (the result would be for the old domain).
 */
import type { ProjectInput } from '../../src-shared/protocol/index';
import { History } from './history';

export class EditHistory {
  canUndo = $state(false);
  canRedo = $state(false);
  /** Bumped by undo/redo (and renames) so editors holding drafts are rebuilt from the project. */
  editVersion = $state(0);
  /**
   * Domains whose editor holds an edit that cannot be applied (plain problem): nothing on them is computed meanwhile.
   */
  draftProblems = $state<Record<string, string>>({});
  private readonly history = new History();

  setDraftProblem(domainId: string, problem: string | null): void {
    if (problem) this.draftProblems[domainId] = problem;
    else if (domainId in this.draftProblems) delete this.draftProblems[domainId];
  }

  /** Why nothing may be computed on this domain now (an unapplied invalid edit), in plain words, or null. */
  draftBlock(domainId: string | undefined): string | null {
    const p = domainId === undefined ? undefined : this.draftProblems[domainId];
    return p
      ? `The domain '${domainId}' has an edit that is not applied (${p}). Fix it, or leave its page to discard it, before computing.`
      : null;
  }

  /** A freshly opened project: nothing to undo. */
  reset(p: ProjectInput): void {
    this.history.reset(p);
    this.sync();
  }

  /** Note the project after an edit (any redo steps are dropped). */
  record(p: ProjectInput): void {
    this.history.record(p);
    this.sync();
  }

  /** The project before the last edit, or null when there is none (editors holding drafts are rebuilt). */
  undo(): ProjectInput | null {
    return this.restored(this.history.undo());
  }

  redo(): ProjectInput | null {
    return this.restored(this.history.redo());
  }

  private restored(p: ProjectInput | null): ProjectInput | null {
    if (p) {
      this.editVersion++;
      this.sync();
    }
    return p;
  }

  private sync(): void {
    this.canUndo = this.history.canUndo();
    this.canRedo = this.history.canRedo();
  }
}
