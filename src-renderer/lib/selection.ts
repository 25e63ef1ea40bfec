/**
 * The item the main pane shows, and where the selection goes when that item is gone (undo, delete, another project).
 */
import type { ProjectInput } from '../../src-shared/protocol/index';
import { listOf, type ItemKind } from './project-model';

export type Selection = { kind: ItemKind; id: string } | null;

/**
 * What a project opens on: its first case study (the built-in examples), else its first mechanism, else its first
 * domain.
 */
export function defaultSelection(p: ProjectInput): Selection {
  if (p.caseStudies?.[0]) return { kind: 'caseStudy', id: p.caseStudies[0].id };
  if (p.mechanisms?.[0]) return { kind: 'mechanism', id: p.mechanisms[0].id };
  if (p.domains[0]) return { kind: 'domain', id: p.domains[0].id };
  return null;
}

/** Whether the selected item is (still) in the project. */
export function selectionHeld(p: ProjectInput, s: Selection): boolean {
  return s !== null && listOf(p, s.kind).some((x) => x.id === s.id);
}
