/**
 * Inputs validated before Compute: number fields take
 * expressions and refuse out-of-range values in plain words; analyses are
 * checked before Run; a pasted non-metric is refused; rename and duplicate
 * keep references whole; undo/redo; plain language instead of SPEC sections.
 */
import { describe, expect, it } from 'vitest';
import { EPSILON_RULE, numberText, parseNumberField } from '../../../../src-renderer/lib/number-field';
import { analysisProblems } from '../../../../src-renderer/editors/analysis-validation';
import { townProject } from '../../support/state-fixture';
import { parseMetricCsv } from '../../../../src-renderer/editors/custom-metric';
import { duplicateItem, idProblem, renameItem } from '../../../../src-renderer/lib/project-model';
import { History } from '../../../../src-renderer/lib/history';
import { GLOSSARY, plainText } from '../../../../src-renderer/lib/plain';
import { findingBlocks, paramWords } from '../../../../src-renderer/lib/case-study';
import { projectSchema, type ProjectInput } from '../../../../src-shared/protocol/project';

type AnalysisIn = NonNullable<ProjectInput['analyses']>[number];
const level = { what: 'privacy level l', min: 0, above: true };
const radius = { what: 'radius r', min: 0, above: true, unit: 'km' };

describe('number fields', () => {
  it('take expressions: ln 4 is ln 4, not 4; ln(2)/2 and 2*ln 3 too', () => {
    expect(parseNumberField('ln 4', level)).toEqual({ ok: true, value: Math.log(4) });
    expect(parseNumberField('ln(2)/2', EPSILON_RULE)).toEqual({ ok: true, value: Math.LN2 / 2 });
    // a stored ln k is shown as the expression (it fits the field) and reads back exactly; other numbers as they are
    for (const k of [2, 3, 10])
      expect(parseNumberField(numberText(Math.log(k)), EPSILON_RULE)).toEqual({ ok: true, value: Math.log(k) });
    expect([numberText(Math.LN2), numberText(0.5), numberText(Math.LN2 + 1e-15), numberText(undefined)]).toEqual([
      'ln 2',
      '0.5',
      String(Math.LN2 + 1e-15),
      '',
    ]);
    expect(parseNumberField(' 2*ln 3 ', EPSILON_RULE)).toEqual({ ok: true, value: 2 * Math.log(3) });
    expect(parseNumberField('0.5', EPSILON_RULE)).toEqual({ ok: true, value: 0.5 });
  });

  it('refuse level 0, radius -2 and nonsense in plain words naming the field and what was typed', () => {
    const l0 = parseNumberField('0', level);
    expect(l0.ok).toBe(false);
    expect(!l0.ok && l0.problem).toBe('privacy level l must be more than 0 (you entered 0)');
    const r = parseNumberField('-2', radius);
    expect(!r.ok && r.problem).toBe('radius r must be more than 0 km (you entered -2 km)');
    const h = parseNumberField('hello', EPSILON_RULE);
    expect(!h.ok && h.problem).toMatch(/^ε: “hello” is not a number or an expression such as ln 4/);
    const e = parseNumberField('', EPSILON_RULE);
    expect(!e.ok && e.problem).toMatch(/ε is empty/);
    expect(parseNumberField('', { ...EPSILON_RULE, optional: true })).toEqual({ ok: true, value: undefined });
    const ex = parseNumberField('ln 1', EPSILON_RULE);
    expect(!ex.ok && ex.problem).toBe('ε must be more than 0 (you entered ln 1 = 0)');
    const st = parseNumberField('2.5', { what: 'steps', min: 2, max: 500, integer: true });
    expect(!st.ok && st.problem).toBe('steps must be a whole number (you entered 2.5)');
    expect(parseNumberField('501', { what: 'steps', min: 2, max: 500, integer: true }).ok).toBe(false);
  });
});

/** A 3 x 3 town, its uniform prior 'pop', planar Laplace 'pl' under it, and one analysis of each kind checked. */
function proj(): ProjectInput {
  const town = townProject();
  const sweep: AnalysisIn = {
    id: 'sw',
    type: 'sweep',
    domain: 'town',
    kinds: ['tg'],
    from: 0.1,
    to: 2,
    steps: 10,
    prior: 'pop',
  };
  return { ...town, analyses: [sweep, ...town.analyses!] };
}

describe('analyses are checked before Run', () => {
  it('a valid analysis has no problem; reversed or empty ranges and no kinds are named plainly', () => {
    const p = proj();
    for (const a of p.analyses!) expect(analysisProblems(a, p)).toEqual([]);
    const sw = { ...p.analyses![0]!, from: 2, to: 1, kinds: [] } as AnalysisIn;
    expect(analysisProblems(sw, p)).toEqual([
      'ε from (2) must be smaller than ε to (1)',
      'pick at least one mechanism to plot',
    ]);
    const st = { ...p.analyses![0]!, steps: 1 } as AnalysisIn;
    expect(analysisProblems(st, p)).toEqual(['steps must be a whole number from 2 to 500 (it is 1)']);
    const reg = { ...p.analyses![2]!, epsilon: 0, prior: 'gone' } as AnalysisIn;
    expect(analysisProblems(reg, p)).toEqual([
      'ε must be more than 0 (it is 0)',
      "the prior 'gone' no longer exists: pick another",
    ]);
  });
});

describe('custom metric paste', () => {
  it("'hello' is refused, not turned into a 0-point metric", () => {
    const r = parseMetricCsv('hello');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/no rows of distances/);
    const ok = parseMetricCsv(',a,b\na,0,1\nb,1,0');
    expect(ok.ok && ok.metric.labels).toEqual(['a', 'b']);
  });
});

describe('rename and duplicate', () => {
  it('renaming a prior or mechanism moves every reference; the project stays valid', () => {
    const p = proj();
    expect(renameItem(p, 'prior', 'pop', 'people')).toBe('people');
    expect(p.mechanisms![0]!.prior).toBe('people');
    expect(p.analyses!.filter((a) => 'prior' in a).map((a) => (a as { prior?: string }).prior)).toEqual([
      'people',
      'people',
      'people',
    ]);
    renameItem(p, 'mechanism', 'pl', 'planar');
    expect((p.analyses![1] as { mechanism: string }).mechanism).toBe('planar');
    expect(projectSchema.safeParse(p).success).toBe(true);
    // a domain's display name changes, its id stays
    expect(renameItem(p, 'domain', 'town', 'Old town')).toBe('town');
    expect(p.domains[0]).toMatchObject({ id: 'town', name: 'Old town' });
  });

  it('refuses names in plain words: taken, spaces, empty', () => {
    const p = proj();
    p.mechanisms!.push({ id: 'other', domain: 'town', kind: 'tg', epsilon: 1 });
    expect(() => renameItem(p, 'mechanism', 'pl', 'other')).toThrow("another mechanism is already called 'other'");
    expect(idProblem(p, 'mechanism', 'my mech')).toMatch(/no spaces/);
    expect(idProblem(p, 'analysis', '')).toBe('the name is empty');
    expect(p.mechanisms![0]!.id).toBe('pl');
  });

  it('duplicates next to the original under a free id; the copy is independent', () => {
    const p = proj();
    expect(duplicateItem(p, 'mechanism', 'pl')).toBe('pl-copy');
    expect(duplicateItem(p, 'mechanism', 'pl')).toBe('pl-copy-2');
    expect(p.mechanisms!.map((m) => m.id)).toEqual(['pl', 'pl-copy-2', 'pl-copy']);
    p.mechanisms![2]!.epsilon = 3;
    expect(p.mechanisms![0]!.epsilon).toBe(1);
    expect(duplicateItem(p, 'domain', 'town')).toBe('town-copy');
    expect(p.domains[1]!.name).toBe('Town (copy)');
    expect(projectSchema.safeParse(p).success).toBe(true);
  });
});

describe('undo/redo history', () => {
  it('steps back and forth through edits; a new edit drops the redo steps; repeats are one step', () => {
    const h = new History(3);
    const p = proj();
    h.reset(p);
    expect(h.canUndo()).toBe(false);
    p.mechanisms![0]!.epsilon = 2;
    h.record(p);
    h.record(p);
    p.mechanisms![0]!.epsilon = 3;
    h.record(p);
    expect(h.undo()!.mechanisms![0]!.epsilon).toBe(2);
    expect(h.undo()!.mechanisms![0]!.epsilon).toBe(1);
    expect(h.undo()).toBeNull();
    expect(h.redo()!.mechanisms![0]!.epsilon).toBe(2);
    p.mechanisms![0]!.epsilon = 5;
    h.record(p);
    expect(h.canRedo()).toBe(false);
    expect(h.undo()!.mechanisms![0]!.epsilon).toBe(2);
    // bounded: at most 3 undo steps kept
    for (const e of [6, 7, 8, 9]) ((p.mechanisms![0]!.epsilon = e), h.record(p));
    let n = 0;
    while (h.undo()) n++;
    expect(n).toBe(3);
    // bounded by size too: snapshots larger than the budget keep only the latest
    const small = new History(100, 2.5 * JSON.stringify(p).length);
    small.reset(p);
    for (const e of [2, 3, 4]) ((p.mechanisms![0]!.epsilon = e), small.record(p));
    expect(small.undo()!.mechanisms![0]!.epsilon).toBe(3);
    expect(small.undo()).toBeNull();
  });
});

describe('plain language', () => {
  it('no SPEC section or "mu Phi = pi" reaches the user through case-study findings', () => {
    const texts = [
      'the uniform prior is regular there, SPEC §5).',
      'its channel passes the SPEC §4 check (effective eps 1).',
      '- The exact average is uniformly 1-sensitive here, as SPEC §4 states.',
      'Uniform sensitivity, enumerated with d_inf (SPEC §4): x',
      'source = SPEC §6 line',
      'mu solves mu Phi = pi',
    ];
    for (const t of texts) {
      const out = findingBlocks([t])
        .flatMap((b) => b.segments.map((s) => s.text))
        .join('');
      expect(out).not.toMatch(/SPEC|§|mu Phi/);
    }
    expect(plainText('passes the SPEC §4 check')).toBe('passes the privacy check');
    // the level of privacy in words, eps as ε
    expect(plainText('exactly eps*d2-private (post-processing)')).toBe('exactly private at ε (post-processing)');
    expect(plainText('0.5*d-private: post-processing; confirms eps*d_inf-privacy (effective eps 0.99)')).toBe(
      'private at ε = 0.5: post-processing; confirms privacy at ε (effective ε 0.99)',
    );
    expect(plainText('each eps-LDP')).toBe('each locally private at ε');
    // a case study's parameters by name in words
    expect(['noiseEpsilons', 'levelWidth', 'fullLpEpsilons', 'epsilon', 'citySide'].map(paramWords)).toEqual([
      'noise ε',
      'level width',
      'full LP ε',
      'ε',
      'city side',
    ]);
  });

  it('the glossary explains every term the app uses, once each', () => {
    const ids = GLOSSARY.map((g) => g.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const t of ['epsilon', 'level', 'prior', 'regular', 'corner', 'leakage', 'check', 'stale', 'optimal'])
      expect(ids).toContain(t);
    for (const g of GLOSSARY) expect(g.text).not.toMatch(/SPEC|§/);
  });
});
