import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  analysisTitle,
  applyDeletion,
  caseStudyRequest,
  describeDeletion,
  planDeletion,
} from '../../../../src-renderer/lib/project-model';
import { cellText, findingBlocks, inlineSegments, tableToCsv } from '../../../../src-renderer/lib/case-study';
import { projectSchema, type ProjectInput } from '../../../../src-shared/protocol/project';
import { jobRequestSchema } from '../../../../src-shared/protocol/requests';

const ROOT = join(__dirname, '../../../..');
function voting(): ProjectInput {
  return JSON.parse(readFileSync(join(ROOT, 'resources/examples/voting.json'), 'utf8')) as ProjectInput;
}
const ids = (p: ProjectInput): Record<string, string[]> => ({
  domains: p.domains.map((x) => x.id),
  priors: (p.priors ?? []).map((x) => x.id),
  mechanisms: (p.mechanisms ?? []).map((x) => x.id),
  analyses: (p.analyses ?? []).map((x) => x.id),
  caseStudies: (p.caseStudies ?? []).map((x) => x.id),
});

describe('deleting project items (pure project model)', () => {
  it('a domain takes its priors, mechanisms, their analyses and its own analyses; the rest and caseStudies stay, and the project stays valid', () => {
    const p = voting();
    const before = ids(p);
    const plan = planDeletion(p, 'domain', 'yes-votes');
    // planning does not touch the project
    expect(ids(p)).toEqual(before);
    // in this order: the priors, the mechanisms, then the analyses
    const cascade = {
      prior: ['uniform-votes', 'close-race'],
      mechanism: ['votes-tg', 'votes-tight', 'votes-optimal-close-race'],
      analysis: [
        'tg-close-race',
        'tg-check',
        'votes-capacity',
        'votes-regular-uniform',
        'votes-regular-close-race',
        'votes-vertices',
        'votes-sweep',
      ],
    };
    expect(plan.cascade).toEqual(Object.entries(cascade).flatMap(([kind, list]) => list.map((id) => ({ kind, id }))));
    expect(plan.detach).toEqual([]);
    const caseStudies = JSON.stringify(p.caseStudies);
    const removed = applyDeletion(p, plan);
    expect(removed).toHaveLength(13);
    expect(ids(p)).toEqual({
      domains: ['cities'],
      priors: ['uniform-cities', 'city-sizes'],
      mechanisms: ['cities-rr', 'cities-exponential'],
      analyses: ['rr-uniform', 'rr-city-sizes', 'cities-capacity'],
      caseStudies: ['voting'],
    });
    expect(JSON.stringify(p.caseStudies)).toBe(caseStudies);
    expect(projectSchema.safeParse(p).success).toBe(true);
  });

  it('a mechanism takes its measure and check analyses only', () => {
    const p = voting();
    const plan = planDeletion(p, 'mechanism', 'votes-tg');
    expect(plan.cascade).toEqual([
      { kind: 'analysis', id: 'tg-close-race' },
      { kind: 'analysis', id: 'tg-check' },
    ]);
    applyDeletion(p, plan);
    expect(ids(p).mechanisms).toEqual(['cities-rr', 'cities-exponential', 'votes-tight', 'votes-optimal-close-race']);
    expect(ids(p).analyses).toHaveLength(8);
    expect(projectSchema.safeParse(p).success).toBe(true);
  });

  it('a prior takes the analyses that need it (regular) and is cleared where optional (mechanisms and measures fall back to uniform)', () => {
    const p = voting();
    const plan = planDeletion(p, 'prior', 'close-race');
    expect(plan.cascade).toEqual([{ kind: 'analysis', id: 'votes-regular-close-race' }]);
    expect(plan.detach).toEqual([
      { kind: 'mechanism', id: 'votes-optimal-close-race', field: 'prior' },
      { kind: 'analysis', id: 'tg-close-race', field: 'prior' },
    ]);
    expect(describeDeletion(plan)).toBe(
      'It also deletes what depends on it: analysis ‘votes-regular-close-race’. Mechanism ‘votes-optimal-close-race’; analysis ‘tg-close-race’ will use the uniform prior instead.',
    );
    applyDeletion(p, plan);
    const m = p.mechanisms!.find((x) => x.id === 'votes-optimal-close-race')!;
    expect(m.prior).toBeUndefined();
    expect(m.kind).toBe('optimal');
    const a = p.analyses!.find((x) => x.id === 'tg-close-race')!;
    expect('prior' in a).toBe(false);
    expect(projectSchema.safeParse(p).success).toBe(true);
  });

  it('an item nothing depends on goes alone, with no confirmation text; a case study goes alone too', () => {
    const p = voting();
    const plan = planDeletion(p, 'analysis', 'votes-sweep');
    expect(plan).toEqual({ target: { kind: 'analysis', id: 'votes-sweep' }, cascade: [], detach: [] });
    expect(describeDeletion(plan)).toBeNull();
    expect(applyDeletion(p, plan)).toEqual(['votes-sweep']);
    const cs = planDeletion(p, 'caseStudy', 'voting');
    expect(cs.cascade).toEqual([]);
    applyDeletion(p, cs);
    expect(p.caseStudies).toEqual([]);
    expect(ids(p).domains).toEqual(['cities', 'yes-votes']);
  });

  it('refuses to plan the deletion of an item that does not exist, naming it', () => {
    expect(() => planDeletion(voting(), 'mechanism', 'nope')).toThrow("there is no mechanism 'nope' to delete");
    expect(() => planDeletion(voting(), 'caseStudy', 'x')).toThrow("there is no case study 'x' to delete");
  });

  it('names several dependents of one kind in the plural', () => {
    const text = describeDeletion(planDeletion(voting(), 'domain', 'cities'))!;
    expect(text).toBe(
      'It also deletes what depends on it: priors ‘uniform-cities’, ‘city-sizes’; mechanisms ‘cities-rr’, ‘cities-exponential’; analyses ‘rr-uniform’, ‘rr-city-sizes’, ‘cities-capacity’.',
    );
  });
});

describe('titles follow the current domain', () => {
  it('uses the domain display name of the analysis domain as it is now', () => {
    const p = voting();
    const a = p.analyses!.find((x) => x.id === 'votes-vertices')!;
    expect(analysisTitle(a, p)).toBe('Private posteriors on Yes votes among five voters, ε = ln 2');
    (a as { domain: string }).domain = 'cities';
    expect(analysisTitle(a, p)).toBe(`Private posteriors on ${p.domains[0]!.name}, ε = ln 2`);
    // without a project (or an unknown id) the id is shown
    expect(analysisTitle(a)).toBe('Private posteriors on cities, ε = ln 2');
  });
});

describe('case studies in the app', () => {
  it('builds the case-study job of a project entry (valid for the job schema) and refuses unresolved file parameters', () => {
    const c = voting().caseStudies![0]!;
    const req = caseStudyRequest(c);
    expect(jobRequestSchema.safeParse(req).success).toBe(true);
    expect(req).toEqual({ type: 'case-study', study: 'voting', params: c.params });
    expect(() => caseStudyRequest({ id: 's', study: 'smart-meter', params: { trace: 'csv:day.csv' } })).toThrow(
      "parameter 'trace' (csv:day.csv) refers to a file",
    );
  });
  it('turns findings into paragraphs and bullets with bold and code spans', () => {
    // in plain words: eps as ε (plainText)
    expect(findingBlocks(['At eps = 1:', '- first **bold** and `x`\n- second', ''])).toEqual([
      { kind: 'p', segments: [{ text: 'At ε = 1:' }] },
      {
        kind: 'li',
        segments: [{ text: 'first ' }, { text: 'bold', bold: true }, { text: ' and ' }, { text: 'x', code: true }],
      },
      { kind: 'li', segments: [{ text: 'second' }] },
    ]);
    expect(inlineSegments('a ** b')).toEqual([{ text: 'a ** b' }]);
  });
  it('writes tables as CSV with quoting and full precision', () => {
    expect(
      tableToCsv({
        header: ['name', 'v'],
        rows: [
          ['a,b', 2 / 7],
          ['say "hi"', null],
          ['t', true],
        ],
      }),
    ).toBe('name,v\n"a,b",0.2857142857142857\n"say ""hi""",\nt,true\n');
    expect(cellText(2 / 7)).toBe('0.285714');
    expect(cellText(null)).toBe('—');
    expect(cellText(12)).toBe('12');
  });
});

describe('deletion dialog groups', () => {
  it('groups dependents by effect and kind, in plan order', async () => {
    const { deletionGroups } = await import('../../../../src-renderer/lib/project-model');
    expect(deletionGroups(planDeletion(voting(), 'prior', 'close-race'))).toEqual([
      { effect: 'deleted', kind: 'analysis', label: 'analysis', ids: ['votes-regular-close-race'] },
      { effect: 'uniform-prior', kind: 'mechanism', label: 'mechanism', ids: ['votes-optimal-close-race'] },
      { effect: 'uniform-prior', kind: 'analysis', label: 'analysis', ids: ['tg-close-race'] },
    ]);
    expect(deletionGroups(planDeletion(voting(), 'domain', 'cities')).map((g) => `${g.ids.length} ${g.label}`)).toEqual(
      ['2 priors', '2 mechanisms', '3 analyses'],
    );
  });
});

describe('counts for people', () => {
  it('groups digits below a billion and writes a power of ten above', async () => {
    const { fmtCount } = await import('../../../../src-renderer/lib/format');
    expect(fmtCount(1024)).toBe('1,024');
    expect(fmtCount(8 ** 24)).toBe('≈ 4.72 × 10²¹');
    expect(fmtCount(1e9)).toBe('≈ 1 × 10⁹');
  });
});

describe('every built-in example opens in the app with runnable case studies', () => {
  it('loads each example as the app does (files resolved) and builds valid case-study jobs', async () => {
    const { createProjectStore } = await import('../../../../src-main/host/project-store');
    const { readdirSync } = await import('node:fs');
    const store = createProjectStore({} as never, {
      examplesDir: join(ROOT, 'resources/examples'),
      configDir: join(ROOT, 'test-output/unused-config'),
    });
    const files = readdirSync(join(ROOT, 'resources/examples')).filter((f) => f.endsWith('.json'));
    expect(
      store
        .examples()
        .map((e) => `${e.name}.json`)
        .sort(),
    ).toEqual(files.sort());
    let studies = 0;
    for (const f of files) {
      const p = store.loadExample(f.slice(0, -5));
      expect(projectSchema.safeParse(p).success).toBe(true);
      for (const c of p.caseStudies ?? []) {
        const req = caseStudyRequest(c);
        expect(jobRequestSchema.safeParse(req).success).toBe(true);
        studies++;
      }
    }
    // the eight built-in case studies
    expect(studies).toBe(8);
  });
});
