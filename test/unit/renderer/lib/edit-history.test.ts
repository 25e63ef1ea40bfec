/** Undo/redo of edits and the editors' unapplied drafts (lib/edit-history.svelte.ts). */
import { describe, expect, it } from 'vitest';
import { useSsrModules } from '../../support/ssr';
import { townProject } from '../../support/state-fixture';
import type * as EditsModule from '../../../../src-renderer/lib/edit-history.svelte';

const PATH = '/src-renderer/lib/edit-history.svelte.ts';
const ssr = useSsrModules([PATH]);
const EditHistory = (): typeof EditsModule.EditHistory => (ssr.module(PATH) as typeof EditsModule).EditHistory;

describe('edit history', () => {
  it('undo restores the project before the last edit, redo the edit; each bumps the editors’ version', () => {
    const h = new (EditHistory())();
    const p = townProject();
    h.reset(p);
    expect([h.canUndo, h.canRedo, h.undo()]).toEqual([false, false, null]);
    p.mechanisms![0]!.epsilon = 2;
    h.record(p);
    expect([h.canUndo, h.canRedo, h.editVersion]).toEqual([true, false, 0]);
    const before = h.undo();
    expect(before!.mechanisms![0]!.epsilon).toBe(1);
    expect([h.canUndo, h.canRedo, h.editVersion]).toEqual([false, true, 1]);
    expect(h.redo()!.mechanisms![0]!.epsilon).toBe(2);
    expect([h.canUndo, h.canRedo, h.editVersion]).toEqual([true, false, 2]);
    // nothing to redo: the editors are not rebuilt
    expect(h.redo()).toBeNull();
    expect(h.editVersion).toBe(2);
  });

  it('a new edit after an undo drops the redo step; opening a project forgets every step', () => {
    const h = new (EditHistory())();
    const p = townProject();
    h.reset(p);
    h.record({ ...p, name: 'a' });
    h.undo();
    h.record({ ...p, name: 'b' });
    expect([h.canRedo, h.undo()!.name]).toEqual([false, 'v']);
    h.reset(p);
    expect([h.canUndo, h.canRedo]).toEqual([false, false]);
  });

  it('a domain with an unapplied invalid draft blocks computing on it, in plain words, until the draft is fixed', () => {
    const h = new (EditHistory())();
    expect(h.draftBlock('town')).toBeNull();
    h.setDraftProblem('town', 'rows must be a whole number ≥ 1');
    expect(h.draftBlock('town')).toBe(
      "The domain 'town' has an edit that is not applied (rows must be a whole number ≥ 1). Fix it, or leave its page to discard it, before computing.",
    );
    expect([h.draftBlock('other'), h.draftBlock(undefined)]).toEqual([null, null]);
    h.setDraftProblem('town', null);
    expect([h.draftBlock('town'), h.draftProblems]).toEqual([null, {}]);
  });
});
