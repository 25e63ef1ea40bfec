/**
 * Results kept in the project file: the file format
 * round trip carries them, their input hashes invalidate them when an input
 * changes (and only then), old files without results still load, and
 * opening never plans an expensive job.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { townProject } from '../../support/project-fixture';
import { silentContext } from '../../../../src-worker/jobs/context';
import { runJobRequest } from '../../../../src-worker/jobs/run';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import type { JobResult, MechanismResult } from '../../../../src-shared/protocol/results';
import { projectSchema, type ProjectInput } from '../../../../src-shared/protocol/project';
import { parseProject } from '../../../../src-main/project/project-file';
import { readProjectSafely, writeProjectSafely } from '../../../../src-main/host/project-store';
import { APP_REQUESTS } from '../../../../src-renderer/lib/project-model';
import { analysisRequest, channelSource, mechanismRequest } from '../../../../src-shared/project/item-requests';
import {
  hashText,
  isExpensive,
  itemHash,
  keptResults,
  projectWithResults,
  restoreResults,
  stableStringify,
  type HeldResult,
} from '../../../../src-renderer/lib/kept-results';

async function run(req: unknown): Promise<JobResult> {
  const parsed = parseJobRequest(req);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return runJobRequest(parsed.value, silentContext());
}

function project(): ProjectInput {
  return townProject('kept', {
    priors: [
      {
        id: 'pop',
        domain: 'town',
        prior: { kind: 'vector', values: Array.from({ length: 16 }, (_, i) => (i + 1) / 136) },
      },
    ],
    mechanisms: [
      { id: 'pl', domain: 'town', kind: 'planar-laplace', epsilon: 1, prior: 'pop' },
      { id: 'lp', domain: 'town', kind: 'optimal', epsilon: 1, prior: 'pop', loss: 'dist', lpModel: 'exact' },
    ],
    analyses: [
      { id: 'pl-measures', type: 'measure', mechanism: 'pl', loss: 'dist' },
      { id: 'cap', type: 'capacity', domain: 'town', epsilon: 1 },
    ],
  });
}

/** Compute every item of the project the way the app does, keeping results with their hashes. */
async function computeAll(p: ProjectInput): Promise<Record<string, HeldResult>> {
  const held: Record<string, HeldResult> = {};
  for (const m of p.mechanisms ?? []) {
    const hash = itemHash(p, m.id)!;
    held[m.id] = {
      status: 'done',
      hash,
      result: await run(mechanismRequest(p, m, APP_REQUESTS)),
      computedAt: '2026-11-24T00:00:00.000Z',
    };
  }
  for (const a of p.analyses ?? []) {
    const m = 'mechanism' in a ? (p.mechanisms ?? []).find((x) => x.id === a.mechanism) : undefined;
    const source = m ? channelSource(p, m, (held[m.id]!.result as MechanismResult).channelRef) : undefined;
    held[a.id] = {
      status: 'done',
      hash: itemHash(p, a.id)!,
      result: await run(analysisRequest(p, a, { ...APP_REQUESTS, source })),
    };
  }
  return held;
}

describe('input hashes', () => {
  it('stableStringify ignores key order and undefined fields; hashText is 16 hex digits and separates near texts', () => {
    expect(stableStringify({ b: 1, a: [1, { d: 2, c: undefined }] })).toBe(stableStringify({ a: [1, { d: 2 }], b: 1 }));
    expect(hashText('abc')).toMatch(/^[0-9a-f]{16}$/);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) seen.add(hashText(`{"epsilon":${i / 1000}}`));
    expect(seen.size).toBe(2000);
  });

  it('an item hash changes with every input the result depends on, and not with its id, name or thread count', () => {
    const p = project();
    const pl = itemHash(p, 'pl')!;
    const lp = itemHash(p, 'lp')!;
    const meas = itemHash(p, 'pl-measures')!;
    const cap = itemHash(p, 'cap')!;
    const change = (f: (q: ProjectInput) => void): ProjectInput => {
      const q = structuredClone(p);
      f(q);
      return q;
    };
    // epsilon of the mechanism: the mechanism and the measures of it change, the capacity does not
    let q = change((x) => (x.mechanisms![0]!.epsilon = 2));
    expect(itemHash(q, 'pl')).not.toBe(pl);
    expect(itemHash(q, 'pl-measures')).not.toBe(meas);
    expect(itemHash(q, 'cap')).toBe(cap);
    expect(itemHash(q, 'lp')).toBe(lp);
    // the domain: everything on it
    q = change((x) => (x.domains[0]!.domain = 'grid:4x5:step=0.5'));
    for (const k of ['pl', 'lp', 'pl-measures', 'cap']) expect(itemHash(q, k)).not.toBe(itemHash(p, k));
    // the prior's values: the mechanisms using it (the LP, and planar Laplace whose request carries it)
    q = change((x) => ((x.priors![0]!.prior as { values: number[] }).values[0] = 0.5));
    expect(itemHash(q, 'lp')).not.toBe(lp);
    expect(itemHash(q, 'cap')).toBe(cap);
    // the LP's target gap: the LP only
    q = change((x) => ((x.mechanisms![1] as { targetGap?: number }).targetGap = 0.05));
    expect(itemHash(q, 'lp')).not.toBe(lp);
    expect(itemHash(q, 'pl')).toBe(pl);
    // not inputs: the domain's display name, the LP's threads, the prior's id (renamed everywhere)
    q = change((x) => {
      x.domains[0]!.name = 'Renamed';
      (x.mechanisms![1] as { lpThreads?: number }).lpThreads = 3;
      x.priors![0]!.id = 'people';
      for (const m of x.mechanisms!) m.prior = 'people';
    });
    expect([itemHash(q, 'pl'), itemHash(q, 'lp'), itemHash(q, 'pl-measures'), itemHash(q, 'cap')]).toEqual([
      pl,
      lp,
      meas,
      cap,
    ]);
    // unknown items have no hash
    expect(itemHash(p, 'nothing')).toBeNull();
  });
});

describe('the project file carries results', () => {
  it('round trip: saved results come back current, with the same numbers; an input changed in the file comes back stale', async () => {
    const p = project();
    p.mechanisms = p.mechanisms!.filter((m) => m.kind !== 'optimal'); // the LP has its own test below
    const held = await computeAll(p);
    const { project: saved, skipped } = projectWithResults(p, held);
    expect(skipped).toEqual([]);
    expect(Object.keys(saved.results!).sort()).toEqual(['cap', 'pl', 'pl-measures']);
    // valid under the shared schema, written and read back through the host's store
    expect(projectSchema.safeParse(saved).success).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'kept-'));
    try {
      const file = join(dir, 'kept.mechstudio.json');
      await writeProjectSafely(file, saved);
      const reread = await readProjectSafely(file);
      if ('outside' in reread) throw new Error('the project refers to no files');
      const { project: items, held: back } = restoreResults(reread);
      expect(items.results).toBeUndefined();
      expect(Object.keys(back).sort()).toEqual(['cap', 'pl', 'pl-measures']);
      for (const k of Object.keys(back)) expect(back[k]!.stale).toBe(false);
      const m0 = held.pl!.result as MechanismResult;
      const m1 = back.pl!.result as MechanismResult;
      expect(m1.matrix!.data).toEqual(m0.matrix!.data);
      expect(back['pl-measures']!.result).toEqual(held['pl-measures']!.result);
      expect(back.pl!.computedAt).toBe('2026-11-24T00:00:00.000Z');

      // edited by hand: eps of pl changed in the file -> pl and its measures stale, the capacity current
      const text = JSON.parse(readFileSync(file, 'utf8')) as ProjectInput;
      text.mechanisms![0]!.epsilon = 1.5;
      const { held: edited } = restoreResults(parseProject(JSON.stringify(text), 'edited'));
      expect([edited.pl!.stale, edited['pl-measures']!.stale, edited.cap!.stale]).toEqual([true, true, false]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an LP result is kept and restored without a solve; opening plans no expensive job', async () => {
    const p = project();
    p.analyses = [{ id: 'lp-measures', type: 'measure', mechanism: 'lp' }];
    p.analyses.push({
      id: 'sweep-lp',
      type: 'sweep',
      domain: 'town',
      kinds: ['optimal', 'tg'],
      from: 0.5,
      to: 1,
      steps: 2,
    });
    const hash = itemHash(p, 'lp')!;
    const result = await run(mechanismRequest(p, p.mechanisms![1]!, APP_REQUESTS));
    const { project: saved } = projectWithResults(p, { lp: { status: 'done', hash, result } });
    const { held } = restoreResults(parseProject(JSON.stringify(saved), 'saved'));
    expect(held.lp!.stale).toBe(false);
    expect(held.lp!.result).toEqual(result);
    expect(isExpensive(p, 'lp')).toBe(true);
    expect(isExpensive(p, 'lp-measures')).toBe(true);
    expect(isExpensive(p, 'sweep-lp')).toBe(true);
    expect(isExpensive(p, 'pl')).toBe(false);
  });

  it('keeps results within a byte budget, LPs first, naming what was left out; running and failed items are not kept', () => {
    const p = project();
    const big = (n: number): JobResult =>
      ({
        type: 'capacity',
        multiplicative: 1,
        additive: 1,
        matrix: {
          rows: 1,
          cols: n,
          data: Array(n).fill(0.5),
          rowLabels: ['a'],
          colLabels: Array.from({ length: n }, (_, i) => `c${i}`),
        },
      }) as unknown as JobResult;
    const held: Record<string, HeldResult> = {
      cap: { status: 'done', hash: itemHash(p, 'cap')!, result: big(3000) },
      lp: { status: 'done', hash: itemHash(p, 'lp')!, result: big(3000) },
      pl: { status: 'running' },
      'pl-measures': { status: 'error', hash: itemHash(p, 'pl-measures')! },
    };
    const one = JSON.stringify({ hash: held.lp!.hash, result: held.lp!.result }).length;
    const { results, skipped } = keptResults(p, held, one + 10);
    expect(Object.keys(results)).toEqual(['lp']);
    expect(skipped).toEqual(['cap']);
  });

  it('old project files without results load unchanged; a result for an item that does not exist is refused by name', () => {
    const old = readFileSync(join(__dirname, '../../../../resources/examples/city.json'), 'utf8');
    const p = parseProject(old, 'city.json');
    expect(p.results).toBeUndefined();
    expect(restoreResults(p).held).toEqual({});
    const cap = { type: 'capacity', domain: 'grid:4x4:step=0.5', epsilon: 1, multiplicative: 2, additive: 0.5 };
    expect(
      projectSchema.safeParse({ ...project(), results: { cap: { hash: '0123456789abcdef', result: cap } } }).success,
    ).toBe(true);
    const bad = { ...project(), results: { ghost: { hash: '0123456789abcdef', result: cap } } };
    const r = projectSchema.safeParse(bad);
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain("'ghost'");
    const badHash = { ...project(), results: { cap: { hash: 'xyz', result: cap } } };
    expect(projectSchema.safeParse(badHash).success).toBe(false);
  });
});
