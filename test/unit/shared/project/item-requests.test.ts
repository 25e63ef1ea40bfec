/**
 * A project item's job request (src-shared/project/item-requests.ts), the one
 * function of the app and the project runner: the run's plain request, the
 * app's with what it draws and keeps, the same construction in both, and the
 * same refusals.
 */
import { describe, expect, it } from 'vitest';
import { projectWith } from '../../support/project-fixture';
import {
  analysisRequest,
  channelSource,
  mechanismRequest,
  mechanismSpec,
} from '../../../../src-shared/project/item-requests';
import { parseJobRequest, projectSchema, type ProjectInput } from '../../../../src-shared/protocol/index';
import { planProject } from '../../../../src-worker/jobs/project-plan';

const APP = { inlineLimit: 1000 };
const project: ProjectInput = projectWith(
  { g: 'grid:3x3', v: 'count:3' },
  {
    name: 'requests',
    priors: [
      { id: 'p', domain: 'v', prior: '0.1,0.2,0.3,0.4' },
      { id: 'q', domain: 'g', prior: 'uniform' },
    ],
    mechanisms: [
      { id: 'tg', domain: 'v', kind: 'tg', epsilon: 1, prior: 'p', loss: 'dist', remap: false },
      { id: 'opt', domain: 'g', kind: 'optimal', epsilon: 0.5, prior: 'q', lpModel: 'exact', targetGap: 0.01 },
    ],
    analyses: [
      { id: 'm', type: 'measure', mechanism: 'tg', loss: 'bin' },
      { id: 'c', type: 'check', mechanism: 'tg', epsilon: 2 },
      { id: 'cap', type: 'capacity', domain: 'g', epsilon: 1 },
    ],
  },
);
const [tg, opt] = project.mechanisms!;
const [measure, check, capacity] = project.analyses!;

describe('a project item as its job request', () => {
  it('a project run plans the plain requests: the construction, no inline or kept channel', () => {
    const plan = planProject(projectSchema.parse(project));
    expect(plan.map((p) => p.request)).toEqual([
      {
        type: 'mechanism',
        domain: 'count:3',
        epsilon: 1,
        kind: 'tg',
        prior: { kind: 'vector', values: [0.1, 0.2, 0.3, 0.4] },
        loss: 'dist',
      },
      {
        type: 'mechanism',
        domain: 'grid:3x3',
        epsilon: 0.5,
        kind: 'optimal',
        prior: 'uniform',
        lpModel: 'exact',
        targetGap: 0.01,
      },
      {
        type: 'measure',
        mechanism: mechanismSpec(project, tg!),
        epsilon: 1,
        prior: { kind: 'vector', values: [0.1, 0.2, 0.3, 0.4] },
        loss: 'bin',
      },
      { type: 'check', mechanism: mechanismSpec(project, tg!), domain: 'count:3', epsilon: 2 },
      { type: 'capacity', domain: 'grid:3x3', epsilon: 1 },
    ]);
    for (const p of plan) expect(parseJobRequest(p.request).ok, p.id).toBe(true);
  });

  it("the app's requests: the same construction, channels inline up to its limit, an LP's kept, a kept channel named with its domain", () => {
    expect(mechanismRequest(project, tg!, APP)).toEqual({ ...mechanismRequest(project, tg!), inlineLimit: 1000 });
    expect(mechanismRequest(project, opt!, APP)).toEqual({
      ...mechanismRequest(project, opt!),
      inlineLimit: 1000,
      keepChannel: true,
    });
    expect(analysisRequest(project, capacity!, APP)).toEqual({
      type: 'capacity',
      domain: 'grid:3x3',
      epsilon: 1,
      inlineLimit: 1000,
    });
    const source = channelSource(project, tg!, undefined);
    expect(analysisRequest(project, measure!, APP)).toEqual({
      ...analysisRequest(project, measure!),
      ...source,
      domain: 'count:3',
    });
    expect(analysisRequest(project, check!, { ...APP, source: { channelRef: 'ch-0123456789abcdef' } })).toEqual({
      type: 'check',
      channelRef: 'ch-0123456789abcdef',
      domain: 'count:3',
      epsilon: 2,
      maxViolations: 10,
    });
    // an optimal LP is never solved again for a measure: its kept channel must be named
    expect(() => channelSource(project, opt!, undefined)).toThrow(/compute mechanism 'opt' first/);
  });

  it('refuses a prior of another domain and a file not yet read, in both', () => {
    const wrong = { ...tg!, prior: 'q' };
    for (const app of [undefined, APP]) {
      expect(() => mechanismRequest(project, wrong, app)).toThrow("prior 'q' is on domain 'g', not 'v'");
      expect(() => mechanismRequest(project, { ...tg!, loss: 'csv:l.csv' }, app)).toThrow(
        /loss 'csv:l.csv' refers to a file: resolve it first/,
      );
    }
  });
});
