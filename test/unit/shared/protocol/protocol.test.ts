/**
 * Protocol schemas, project planning and the CLI's text inputs: valid forms parse, each bad form is one clear error.
 */
import { describe, expect, it, vi } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobRequestOf, parseJobRequest } from '../../../../src-shared/protocol/validate';
import { jobRequestSchema } from '../../../../src-shared/protocol/requests';
import { projectSchema } from '../../../../src-shared/protocol/project';
import { jobResultSchema } from '../../../../src-shared/protocol/results';
import { planProject } from '../../../../src-worker/jobs/project-plan';
import { priorInput as parsePriorText } from '../../../../src-shared/project/item-requests';
import { parseChannelCsv, parseLossArg, parsePriorArg } from '../../../../src-main/fs/inputs';
import { parseArgs } from '../../../../src-main/cli/args';
import { MechError } from '../../../../src-shared/errors';
import { resultTable, tableToCsv } from '../../../../src-shared/charts/result-table';
import { jsonFor } from '../../../../src-main/cli/output';
import { exitCodeFor } from '../../../../src-main/cli/main';
import { projectWith } from '../../support/project-fixture';
import { mechanismOnLine } from '../../support/construction-facts';

function err(input: unknown): string {
  const r = parseJobRequest(input);
  if (r.ok) throw new Error('expected a parse error');
  expect(r.error.code).toBe('invalid-input');
  return r.error.message;
}

function mechErr(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(MechError);
    expect((e as MechError).code).toBe('invalid-input');
    return (e as MechError).message;
  }
  throw new Error('expected a MechError');
}

describe('job requests', () => {
  it('accepts every job type in its documented shape', () => {
    const ok = [
      { type: 'mechanism', domain: 'line:6', epsilon: Math.LN2, kind: 'tg' },
      {
        type: 'mechanism',
        domain: { kind: 'custom', labels: ['a', 'b'], distances: [0, 1, 1, 0] },
        epsilon: 1,
        kind: 'optimal',
        prior: { kind: 'vector', values: [0.5, 0.5] },
        loss: 'dist',
      },
      { type: 'measure', channel: { rows: 1, cols: 2, data: [0.5, 0.5], rowLabels: ['x'], colLabels: ['a', 'b'] } },
      { type: 'measure', mechanism: { domain: 'line:3', epsilon: 1, kind: 'tg' }, prior: 'uniform' },
      {
        type: 'check',
        channel: { rows: 1, cols: 1, data: [1], rowLabels: ['x'], colLabels: ['y'] },
        domain: 'line:1',
        epsilon: 1,
      },
      { type: 'capacity', domain: 'clique:4', epsilon: 1 },
      { type: 'regular', domain: 'db:2,2', epsilon: 1, prior: { kind: 'product', values: [0.4, 0.6] } },
      { type: 'threshold', domain: 'line:4', from: 0.1, to: 2, step: 0.1 },
      { type: 'vertices', domain: 'line:3', epsilon: 1, kernels: true },
      { type: 'sweep', domain: 'line:4', kinds: ['tg', 'exponential'], from: 0.1, to: 2, steps: 10 },
      { type: 'run-project', project: { version: 1, name: 'p', domains: [{ id: 'd', domain: 'line:3' }] } },
    ];
    for (const r of ok) expect(parseJobRequest(r).ok, JSON.stringify(r)).toBe(true);
  });

  it('names the field that is wrong', () => {
    expect(err({ type: 'mechanism', domain: 'line:6', epsilon: -1, kind: 'tg' })).toMatch(/'epsilon'.*> 0/);
    expect(err({ type: 'mechanism', domain: 'line:6', epsilon: NaN, kind: 'tg' })).toMatch(/epsilon/);
    expect(err({ type: 'mechanism', domain: 'line:6', epsilon: 1, kind: 'gaussian' })).toMatch(/'kind'/);
    expect(err({ type: 'mechanism', domain: 'line:6', epsilon: 1 })).toMatch(/'kind'/);
    expect(err({ type: 'capacity', domain: 'line:6', epsilon: 1, epsilom: 2 })).toMatch(/epsilom/);
    expect(err({ type: 'threshold', domain: 'line:6', from: 2, to: 1 })).toMatch(/from must be <= to/);
    expect(err({ type: 'sweep', domain: 'line:6', kinds: [], from: 1, to: 2, steps: 5 })).toMatch(/'kinds'/);
    expect(
      err({
        type: 'measure',
        channel: { rows: 2, cols: 2, data: [1, 0, 0], rowLabels: ['a', 'b'], colLabels: ['a', 'b'] },
      }),
    ).toMatch(/rows\*cols/);
    expect(err({ type: 'measure' })).toMatch(/exactly one of channel/);
    expect(err({ type: 'nope' })).toMatch(/'type'/);
    expect(err([1, 2])).toMatch(/JSON object/);
    expect(err({ domain: 'line:3' })).toMatch(/no "type"/);
    expect(
      err({
        type: 'mechanism',
        domain: { kind: 'custom', labels: ['a', 'b'], distances: [0, 1, 1] },
        epsilon: 1,
        kind: 'tg',
      }),
    ).toMatch(/labels.length\^2/);
  });

  it('validates results too (what a worker sends back)', () => {
    expect(
      jobResultSchema.safeParse({
        type: 'capacity',
        domain: 'line:2',
        epsilon: 1,
        multiplicative: 4 / 3,
        additive: 1 / 3,
      }).success,
    ).toBe(true);
    expect(
      jobResultSchema.safeParse({
        type: 'capacity',
        domain: 'line:2',
        epsilon: 1,
        multiplicative: '4/3',
        additive: 1 / 3,
      }).success,
    ).toBe(false);
    // a construction fact may be non-finite (no two values at a finite distance; a residual not computed): still a
    // valid reply
    const mech = {
      ...mechanismOnLine('rr', 2, 1, 0.5),
      effectiveEpsilon: Infinity,
      guarantee: 'g',
      facts: { kind: 'randomised-response', diagonal: 0.5, offDiagonal: NaN, minDistance: Infinity },
    };
    expect(jobResultSchema.safeParse(mech).success).toBe(true);
    // the facts are typed: a construction's field it does not have is refused
    expect(jobResultSchema.safeParse({ ...mech, facts: { ...mech.facts, gap: 0 } }).success).toBe(false);
  });
});

describe('one parse per process', () => {
  it('a request this process parsed goes on to the next runner as it is; any other value is parsed', () => {
    const spy = vi.spyOn(jobRequestSchema, 'safeParse');
    try {
      const raw = { type: 'mechanism', domain: 'line:4', epsilon: 1, kind: 'optimal', timeLimitSeconds: 5 };
      const entered = parseJobRequest(raw);
      expect(entered.ok).toBe(true);
      if (!entered.ok) return;
      expect(spy).toHaveBeenCalledTimes(1);
      // the host's value through the fan-out, the pool and the queue client: no second parse
      for (let k = 0; k < 3; k++) expect(jobRequestOf(entered.value)).toEqual({ ok: true, value: entered.value });
      expect(spy).toHaveBeenCalledTimes(1);
      // the page's object itself, a copy, or a bad request: parsed (and refused) as at the entry
      expect(jobRequestOf(raw)).toMatchObject({ ok: true, value: raw });
      expect(jobRequestOf({ ...entered.value }).ok).toBe(true);
      expect(jobRequestOf({ ...raw, timeLimitSeconds: -1 })).toMatchObject({
        ok: false,
        error: { code: 'invalid-input' },
      });
      expect(spy).toHaveBeenCalledTimes(4);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('project files', () => {
  const project = projectWith(
    { votes: 'count:5', db: 'db:2,2' },
    {
      name: 'test',
      priors: [
        { id: 'u', domain: 'votes', prior: 'uniform' },
        { id: 'close', domain: 'votes', prior: '0.1,0.2,0.2,0.2,0.2,0.1' },
        { id: 'prod', domain: 'db', prior: 'product:0.3,0.7' },
      ],
      mechanisms: [{ id: 'tg', domain: 'votes', kind: 'tg', epsilon: 1, prior: 'u' }],
      analyses: [
        { id: 'm', type: 'measure', mechanism: 'tg', prior: 'close', loss: 'dist' },
        { id: 'c', type: 'check', mechanism: 'tg', epsilon: 2 },
        { id: 'r', type: 'regular', domain: 'db', epsilon: 1, prior: 'prod' },
        { id: 't', type: 'threshold', domain: 'votes', step: 0.05 },
      ],
    },
  );

  it('plans one job per mechanism and analysis with references resolved', () => {
    const plan = planProject(projectSchema.parse(project));
    expect(plan.map((p) => `${p.group}:${p.id}:${p.request.type}`)).toEqual([
      'mechanisms:tg:mechanism',
      'analyses:m:measure',
      'analyses:c:check',
      'analyses:r:regular',
      'analyses:t:threshold',
    ]);
    expect(plan[1]!.request).toEqual({
      type: 'measure',
      mechanism: { domain: 'count:5', epsilon: 1, kind: 'tg', prior: 'uniform' },
      epsilon: 1,
      prior: { kind: 'vector', values: [0.1, 0.2, 0.2, 0.2, 0.2, 0.1] },
      loss: 'dist',
    });
    expect(plan[2]!.request).toMatchObject({ type: 'check', domain: 'count:5', epsilon: 2 });
    expect(plan[3]!.request).toMatchObject({ prior: { kind: 'product', values: [0.3, 0.7] } });
    for (const p of plan) expect(parseJobRequest(p.request).ok).toBe(true);
  });

  it('refuses unknown references, duplicate ids, wrong versions and a prior on another domain', () => {
    const bad = (p: unknown): string => {
      const r = projectSchema.safeParse(p);
      expect(r.success).toBe(false);
      return r.error!.issues.map((i) => i.message).join('; ');
    };
    expect(bad({ ...project, version: 3 })).toMatch(/project version 3 is newer than this program reads \(version 2\)/);
    expect(bad({ ...project, mechanisms: [{ id: 'tg', domain: 'nope', kind: 'tg', epsilon: 1 }] })).toMatch(
      /unknown domain 'nope'/,
    );
    expect(bad({ ...project, domains: [...project.domains, { id: 'db', domain: 'line:2' }] })).toMatch(
      /duplicate domains id 'db'/,
    );
    expect(bad({ ...project, analyses: [{ id: 'x', type: 'measure', mechanism: 'zz' }] })).toMatch(
      /unknown mechanism 'zz'/,
    );
    expect(bad({ ...project, domains: [{ id: 'a b', domain: 'line:2' }] })).toMatch(/ids use letters/);
    const wrongDomain = projectSchema.parse({
      ...project,
      analyses: [{ id: 'r', type: 'regular', domain: 'votes', epsilon: 1, prior: 'prod' }],
    });
    expect(() => planProject(wrongDomain)).toThrow(/prior 'prod' is on domain 'db', not 'votes'/);
  });

  it('parses prior text', () => {
    expect(parsePriorText('uniform')).toBe('uniform');
    expect(parsePriorText('0.25, 0.75')).toEqual({ kind: 'vector', values: [0.25, 0.75] });
    expect(parsePriorText('product:0.3,0.27,0.23,0.2')).toEqual({ kind: 'product', values: [0.3, 0.27, 0.23, 0.2] });
    expect(() => parsePriorText('0.5,x')).toThrow(/item 2/);
    expect(() => parsePriorText('csv:a.csv')).toThrow(/resolve it/);
    expect(() => parsePriorText('gaussian')).toThrow(/unknown prior/);
  });
});

describe('CLI text inputs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mechstudio-inputs-'));

  it('reads a SPEC §8 channel CSV', () => {
    const c = parseChannelCsv(',a,b\nx,0.25,0.75\n"y, quoted",1,0\n', 't.csv');
    expect(c).toEqual({
      rows: 2,
      cols: 2,
      data: [0.25, 0.75, 1, 0],
      rowLabels: ['x', 'y, quoted'],
      colLabels: ['a', 'b'],
    });
  });

  it('names file and line for each channel CSV problem', () => {
    expect(mechErr(() => parseChannelCsv('a,b\nx,1\n', 'c.csv'))).toMatch(
      /c\.csv line 1: the header's first cell must be empty/,
    );
    expect(mechErr(() => parseChannelCsv(',a,b\nx,0.5,0.5\ny,1\n', 'c.csv'))).toMatch(
      /c\.csv line 3: expected 3 cells/,
    );
    expect(mechErr(() => parseChannelCsv(',a,b\nx,0.5,abc\n', 'c.csv'))).toMatch(
      /c\.csv line 2, column 3: 'abc' is not a number/,
    );
    expect(mechErr(() => parseChannelCsv(',a,b\nx,0.5,0.6\n', 'c.csv'))).toMatch(/line 2: row 'x' sums to 1\.1/);
    expect(mechErr(() => parseChannelCsv(',a,b\nx,-0.5,1.5\n', 'c.csv'))).toMatch(/negative/);
    expect(mechErr(() => parseChannelCsv(',a\n"x,1\n', 'c.csv'))).toMatch(/malformed CSV/);
    expect(mechErr(() => parseChannelCsv(',a\n', 'c.csv'))).toMatch(/at least one secret row/);
  });

  it('parses priors and losses, including csv:FILE', () => {
    writeFileSync(join(dir, 'p.csv'), '0.2\n0.3\n0.5\n');
    writeFileSync(join(dir, 'l.csv'), ',s0,s1\nguess0,0,1\nguess1,1,0\n');
    expect(parsePriorArg('uniform')).toBe('uniform');
    expect(parsePriorArg('csv:p.csv', dir)).toEqual({ kind: 'vector', values: [0.2, 0.3, 0.5] });
    expect(parsePriorArg('0.5,0.5')).toEqual({ kind: 'vector', values: [0.5, 0.5] });
    expect(parsePriorArg('product:0.3,0.7')).toEqual({ kind: 'product', values: [0.3, 0.7] });
    expect(mechErr(() => parsePriorArg('0.5,-0.5'))).toMatch(/item 2 \(-0\.5\) is negative/);
    expect(mechErr(() => parsePriorArg('csv:missing.csv', dir))).toMatch(/no such file/);
    expect(mechErr(() => parsePriorArg('zipf'))).toMatch(/unknown prior 'zipf'/);
    expect(parseLossArg('dist2')).toBe('dist2');
    expect(parseLossArg('csv:l.csv', dir)).toEqual({
      kind: 'matrix',
      rows: 2,
      cols: 2,
      data: [0, 1, 1, 0],
      rowLabels: ['guess0', 'guess1'],
    });
    expect(mechErr(() => parseLossArg('l3'))).toMatch(/unknown loss 'l3'/);
  });

  it('refuses a loss CSV with a negative entry, naming the file, line, column and the entry', () => {
    writeFileSync(join(dir, 'l-neg.csv'), ',s0,s1\nguess0,0,1\nguess1,-0.5,0\n');
    expect(mechErr(() => parseLossArg('csv:l-neg.csv', dir))).toBe(
      `loss CSV ${join(dir, 'l-neg.csv')} line 3, column 2: loss matrix entry (row 2, column 1) is -0.5: a loss must be >= 0`,
    );
    writeFileSync(join(dir, 'l-neg2.csv'), '0,1\n1,-2\n');
    expect(mechErr(() => parseLossArg('csv:l-neg2.csv', dir))).toBe(
      `loss CSV ${join(dir, 'l-neg2.csv')} line 2, column 2: loss matrix entry (row 2, column 2) is -2: a loss must be >= 0`,
    );
  });

  it('parses arguments strictly', () => {
    expect(parseArgs(['mechanism', '--domain', 'line:3', '--epsilon=1', '--json'])).toMatchObject({
      command: 'mechanism',
      positional: [],
    });
    expect(mechErr(() => parseArgs(['mechanism', '--domain']))).toMatch(/--domain needs a value/);
    expect(mechErr(() => parseArgs(['mechanism', '--json=yes']))).toMatch(/takes no value/);
    expect(mechErr(() => parseArgs(['mechanism', '--kind', 'a', '--kind', 'b']))).toMatch(/given twice/);
  });

  it('maps error codes to exit statuses (2 = bad input)', () => {
    expect(exitCodeFor('invalid-input')).toBe(2);
    expect(exitCodeFor('not-a-metric')).toBe(2);
    expect(exitCodeFor('cancelled')).toBe(130);
    expect(exitCodeFor('internal')).toBe(1);
  });
});

describe('result tables and --json objects', () => {
  it('gives the documented keys only', () => {
    const mech = {
      type: 'mechanism' as const,
      kind: 'tg',
      domain: 'line:6',
      epsilon: Math.LN2,
      exists: true,
      rows: 6,
      cols: 6,
      utility: 4 / 9,
      effectiveEpsilon: Math.LN2,
      guaranteedEpsilon: Math.LN2,
      guarantee: 'eps d-private',
      facts: { kind: 'none' as const },
      leakage: 1.4,
    };
    expect(Object.keys(jsonFor({ type: 'mechanism', domain: 'line:6', epsilon: 1, kind: 'tg' }, mech))).toEqual([
      'exists',
      'rows',
      'cols',
      'utility',
      'effectiveEpsilon',
      'guaranteedEpsilon',
    ]);
    expect(
      Object.keys(
        jsonFor(
          { type: 'mechanism', domain: 'line:6', epsilon: 1, kind: 'tg', loss: 'dist' },
          { ...mech, expectedLoss: 1 },
        ),
      ),
    ).toContain('expectedLoss');
    expect(
      jsonFor(
        { type: 'mechanism', domain: 'line:6', epsilon: 1, kind: 'tight' },
        { ...mech, exists: false, minZ: -0.1, minZAt: '3' },
      ),
    ).toEqual({
      exists: false,
      minZ: -0.1,
      minZAt: '3',
    });
    const sweep = {
      type: 'sweep' as const,
      domain: 'line:3',
      epsilons: [0.5, 1],
      series: [{ kind: 'tg', utility: [0.4, 0.5], leakage: [0.2, null] }],
      bounds: { utility: [0.5, 0.6], leakage: [null, null] },
    };
    expect(tableToCsv(resultTable(sweep))).toBe(
      'epsilon,tg utility,tg leakage,utility bound,leakage bound\n0.5,0.4,0.2,0.5,\n1,0.5,,0.6,\n',
    );
  });
});
