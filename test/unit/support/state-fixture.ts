/**
 * A small project for the renderer's state tests: a 3 x 3 town with its
 * uniform prior 'pop', planar Laplace 'pl' (ε = 1) on it, a measure of 'pl'
 * ('m') and a regular-mechanism analysis on the town ('reg').
 */
import { starterProject } from '../../../src-renderer/lib/project-model';
import type { ItemResult } from '../../../src-renderer/lib/item-result';
import type { MechanismResult, ProjectInput } from '../../../src-shared/protocol/index';

export function townProject(): ProjectInput {
  return {
    ...starterProject('v', { id: 'town', name: 'Town', domain: 'grid:3x3' }, 'pop', {
      id: 'pl',
      kind: 'planar-laplace',
      epsilon: 1,
    }),
    analyses: [
      { id: 'm', type: 'measure', mechanism: 'pl', prior: 'pop' },
      { id: 'reg', type: 'regular', domain: 'town', epsilon: 1, prior: 'pop' },
    ],
  };
}

/** A mechanism's result as the engine answers (only what the state reads). */
export function mechanismResult(exists = true, channelRef?: string): MechanismResult {
  return {
    type: 'mechanism',
    exists,
    effectiveEpsilon: 1,
    guaranteedEpsilon: 1,
    ...(channelRef ? { channelRef } : {}),
  } as unknown as MechanismResult;
}

/** A finished result computed from inputs of this hash. */
export function doneResult(hash: string | null | undefined, result: MechanismResult = mechanismResult()): ItemResult {
  return { status: 'done', result, ...(hash ? { hash } : {}) };
}
