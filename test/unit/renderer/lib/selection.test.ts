/** Where the selection goes when its item is gone (lib/selection.ts). */
import { describe, expect, it } from 'vitest';
import { defaultSelection, selectionHeld } from '../../../../src-renderer/lib/selection';
import { newProject } from '../../../../src-renderer/lib/project-model';
import { townProject } from '../../support/state-fixture';

describe('selection', () => {
  it('a project opens on its first case study, else its first mechanism, else its first domain, else nothing', () => {
    const p = townProject();
    expect(defaultSelection(p)).toEqual({ kind: 'mechanism', id: 'pl' });
    expect(defaultSelection({ ...p, caseStudies: [{ id: 'cs' } as never] })).toEqual({ kind: 'caseStudy', id: 'cs' });
    expect(defaultSelection({ ...p, mechanisms: [] })).toEqual({ kind: 'domain', id: 'town' });
    expect(defaultSelection({ ...newProject(), mechanisms: [], domains: [] })).toBeNull();
  });

  it('a selection is held while its item of that kind is in the project', () => {
    const p = townProject();
    expect(selectionHeld(p, { kind: 'analysis', id: 'reg' })).toBe(true);
    expect(selectionHeld(p, { kind: 'mechanism', id: 'reg' })).toBe(false);
    expect(selectionHeld(p, { kind: 'prior', id: 'gone' })).toBe(false);
    expect(selectionHeld(p, null)).toBe(false);
  });
});
