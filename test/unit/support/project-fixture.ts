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

/**
 * A project file of version 1, as the earlier versions wrote it (what the migration reads): named `name`, its priors,
 * mechanisms and analyses empty unless `sections` gives them, then the other sections given, in that order.
 */
export function projectFileV1<S extends { domains: unknown[] }>(name: string, sections: S) {
  const { domains, ...rest } = sections;
  const none = (): unknown[] => [];
  return { version: 1, name, domains, priors: none(), mechanisms: none(), analyses: none(), ...rest };
}

/** A project named `name` on one domain, the town: a 4 x 4 grid of 0.5 km cells (id 'town'), with these sections. */
export function townProject(
  name: string,
  sections: Omit<Partial<ProjectInput>, 'version' | 'domains' | 'name'>,
): ProjectInput {
  return {
    version: 2,
    name,
    domains: [{ id: 'town', name: 'Town', domain: 'grid:4x4:step=0.5' }],
    ...sections,
  };
}
