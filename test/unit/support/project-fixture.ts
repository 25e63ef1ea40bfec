import type { ProjectInput } from '../../../src-shared/protocol/project';

/**
 * A version-1 project as written in a file, named 'p' unless sections say otherwise, with these domains
 * (id -> domain spec) and the other sections as given.
 */
export function projectWith(
  domains: Record<string, string>,
  sections: Omit<Partial<ProjectInput>, 'version' | 'domains'> = {},
): ProjectInput {
  return {
    version: 2,
    name: 'p',
    domains: Object.entries(domains).map(([id, domain]) => ({ id, domain })),
    ...sections,
  };
}
