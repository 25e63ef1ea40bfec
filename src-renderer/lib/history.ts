/**
 * Undo/redo of project edits: a bounded list of project snapshots (JSON
 * text), one per edit (lib/edit-history.svelte.ts, on AppState.markDirty).
 * Recording the same project twice in a row is a no-op, so repeated change
 * events of one edit make one step. Pure: unit-tested through EditHistory
 * (test/unit/renderer/lib/edit-history.test.ts) and in
 * test/unit/renderer/editors/validation-before-compute.test.ts.
 */
import type { ProjectInput } from '../../src-shared/protocol/index';

const MAX_UNDO_STEPS = 100;
/** Most characters of snapshots kept (a project with a large inline metric keeps fewer steps). */
const MAX_HISTORY_CHARS = 64 * 2 ** 20;

export class History {
  private states: string[] = [];
  private at = -1;

  constructor(
    private readonly max = MAX_UNDO_STEPS,
    private readonly maxChars = MAX_HISTORY_CHARS,
  ) {}

  /** Start over from a freshly opened project (nothing to undo). */
  reset(p: ProjectInput): void {
    this.states = [JSON.stringify(p)];
    this.at = 0;
  }

  /** Note the project after an edit; any redo steps are dropped. */
  record(p: ProjectInput): void {
    const text = JSON.stringify(p);
    if (this.at >= 0 && this.states[this.at] === text) return;
    this.states.splice(this.at + 1);
    this.states.push(text);
    if (this.states.length > this.max + 1) this.states.splice(0, this.states.length - this.max - 1);
    let chars = this.states.reduce((n, t) => n + t.length, 0);
    while (this.states.length > 1 && chars > this.maxChars) chars -= this.states.shift()!.length;
    this.at = this.states.length - 1;
  }

  canUndo(): boolean {
    return this.at > 0;
  }

  canRedo(): boolean {
    return this.at >= 0 && this.at < this.states.length - 1;
  }

  undo(): ProjectInput | null {
    if (!this.canUndo()) return null;
    this.at--;
    return JSON.parse(this.states[this.at]!) as ProjectInput;
  }

  redo(): ProjectInput | null {
    if (!this.canRedo()) return null;
    this.at++;
    return JSON.parse(this.states[this.at]!) as ProjectInput;
  }
}
