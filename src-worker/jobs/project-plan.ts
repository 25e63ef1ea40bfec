/**
 * A project (protocol/project.ts) as a list of protocol job requests: one
 * per mechanism, one per analysis. Used by the worker's run-project job and
 * by the main process's `mechstudio run` (which sends them to the pool in
 * parallel). Plain TS: file forms (csv:FILE) must have been resolved first.
 */
import { invalid } from '../../src-shared/errors';
import {
  definedLpOptions,
  type LossInput,
  type PriorInput,
  type Project,
  type ProjectLoss,
  type ProjectPrior,
  type JobRequest,
  type MechanismSpec,
} from '../../src-shared/protocol/index';
import { parsePriorSpecText } from '../../src-shared/grammar/prior-spec';

interface PlannedJob {
  id: string;
  group: 'mechanisms' | 'analyses';
  request: JobRequest;
}

/** Prior text without files (the shared prior grammar): uniform, product:p1,..., or a comma list. */
export function parsePriorText(text: string): PriorInput {
  const r = parsePriorSpecText(text);
  if (!r.ok) invalid(r.error);
  const p = r.prior;
  if (p.kind === 'csv' || p.kind === 'points') invalid(`prior '${text.trim()}' reads a file: resolve it before sending the project to a worker`);
  return p.kind === 'uniform' ? 'uniform' : p;
}

function priorInput(p: ProjectPrior): PriorInput {
  return typeof p === 'string' ? parsePriorText(p) : p;
}

function lossInput(l: ProjectLoss): LossInput {
  if (typeof l === 'string' && l.startsWith('csv:')) invalid(`loss '${l}' reads a file: resolve it before sending the project to a worker`);
  return l as LossInput;
}

export function planProject(project: Project): PlannedJob[] {
  const domains = new Map(project.domains.map((d) => [d.id, d.domain]));
  const priors = new Map(project.priors.map((p) => [p.id, p]));
  const mechs = new Map(project.mechanisms.map((m) => [m.id, m]));
  const dom = (id: string) => {
    const d = domains.get(id);
    if (d === undefined) invalid(`unknown domain '${id}'`);
    return d;
  };
  const prior = (id: string | undefined, domainId: string): PriorInput | undefined => {
    if (id === undefined) return undefined;
    const p = priors.get(id);
    if (!p) invalid(`unknown prior '${id}'`);
    if (p.domain !== domainId) invalid(`prior '${id}' is on domain '${p.domain}', not '${domainId}'`);
    return priorInput(p.prior);
  };
  const spec = (id: string): MechanismSpec => {
    const m = mechs.get(id);
    if (!m) invalid(`unknown mechanism '${id}'`);
    const s: MechanismSpec = { domain: dom(m.domain), epsilon: m.epsilon, kind: m.kind };
    const p = prior(m.prior, m.domain);
    if (p !== undefined) s.prior = p;
    if (m.loss !== undefined) s.loss = lossInput(m.loss);
    Object.assign(s, definedLpOptions(m));
    if (m.remap !== undefined) s.remap = m.remap;
    return s;
  };
  const out: PlannedJob[] = [];
  for (const m of project.mechanisms) out.push({ id: m.id, group: 'mechanisms', request: { type: 'mechanism', ...spec(m.id) } });
  for (const a of project.analyses) {
    let request: JobRequest;
    switch (a.type) {
      case 'measure': {
        const s = spec(a.mechanism);
        const m = mechs.get(a.mechanism)!;
        request = { type: 'measure', mechanism: s, epsilon: m.epsilon };
        const p = a.prior !== undefined ? prior(a.prior, m.domain) : s.prior;
        if (p !== undefined) request.prior = p;
        const l = a.loss !== undefined ? lossInput(a.loss) : s.loss;
        if (l !== undefined) request.loss = l;
        break;
      }
      case 'check': {
        const m = mechs.get(a.mechanism)!;
        request = { type: 'check', mechanism: spec(a.mechanism), domain: dom(m.domain), epsilon: a.epsilon ?? m.epsilon };
        break;
      }
      case 'capacity':
        request = { type: 'capacity', domain: dom(a.domain), epsilon: a.epsilon };
        break;
      case 'regular':
        request = { type: 'regular', domain: dom(a.domain), epsilon: a.epsilon, prior: prior(a.prior, a.domain)! };
        break;
      case 'threshold': {
        const r: JobRequest = { type: 'threshold', domain: dom(a.domain) };
        if (a.from !== undefined) r.from = a.from;
        if (a.to !== undefined) r.to = a.to;
        if (a.step !== undefined) r.step = a.step;
        request = r;
        break;
      }
      case 'vertices':
        request = { type: 'vertices', domain: dom(a.domain), epsilon: a.epsilon, kernels: a.kernels ?? false };
        break;
      case 'sweep': {
        const r: JobRequest = { type: 'sweep', domain: dom(a.domain), kinds: a.kinds, from: a.from, to: a.to, steps: a.steps };
        const p = prior(a.prior, a.domain);
        if (p !== undefined) r.prior = p;
        if (a.loss !== undefined) r.loss = lossInput(a.loss);
        request = r;
        break;
      }
    }
    out.push({ id: a.id, group: 'analyses', request });
  }
  return out;
}
