/**
 * Checks of an analysis' fields before Run, in plain
 * words: what the engine would refuse (schema wording) is said here first,
 * so Run is only offered for inputs it can take. Pure: unit-tested.
 */
import type { ProjectInput } from '../../src-shared/protocol/index';

type Analysis = NonNullable<ProjectInput['analyses']>[number];

export function analysisProblems(a: Analysis, project: ProjectInput): string[] {
  const out: string[] = [];
  const eps = (v: number | undefined, what: string, optional = false): void => {
    if (v === undefined) {
      if (!optional) out.push(`${what} is missing`);
    } else if (!Number.isFinite(v) || v <= 0) out.push(`${what} must be more than 0 (it is ${v})`);
  };
  if ('domain' in a && !project.domains.some((d) => d.id === a.domain))
    out.push(`the domain '${a.domain}' no longer exists: pick another`);
  if ('mechanism' in a && !(project.mechanisms ?? []).some((m) => m.id === a.mechanism))
    out.push(`the mechanism '${a.mechanism}' no longer exists: pick another`);
  switch (a.type) {
    case 'sweep':
      eps(a.from, 'ε from');
      eps(a.to, 'ε to');
      if (a.from > 0 && a.to > 0 && !(a.from < a.to))
        out.push(`ε from (${a.from}) must be smaller than ε to (${a.to})`);
      if (!Number.isInteger(a.steps) || a.steps < 2 || a.steps > 500)
        out.push(`steps must be a whole number from 2 to 500 (it is ${a.steps})`);
      if (a.kinds.length === 0) out.push('pick at least one mechanism to plot');
      break;
    case 'threshold':
      eps(a.from, 'ε from', true);
      eps(a.to, 'ε to', true);
      eps(a.step, 'step', true);
      if (a.from !== undefined && a.to !== undefined && a.from > 0 && a.to > 0 && !(a.from < a.to))
        out.push(`ε from (${a.from}) must be smaller than ε to (${a.to})`);
      break;
    case 'capacity':
    case 'vertices':
      eps(a.epsilon, 'ε');
      break;
    case 'regular':
      eps(a.epsilon, 'ε');
      if (!(project.priors ?? []).some((p) => p.id === a.prior))
        out.push(`the prior '${a.prior}' no longer exists: pick another`);
      break;
    case 'check':
      eps(a.epsilon, 'ε to check', true);
      break;
    case 'measure':
      break;
  }
  return out;
}
