/**
 * Comparisons and audits in project files (src-shared/protocol/study-items.ts, projectSchema): files without them open
 * unchanged, files with them round-trip, a bad item is refused with one message naming the file and the field.
 */
import { describe, expect, it } from 'vitest';
import { parseProject } from '../../../../src-main/project/project-file';
import { projectFileV1 } from '../../support/project-fixture';

const base = projectFileV1('study', {
  domains: [{ id: 'town', domain: 'grid:4x4:step=0.5' }],
  priors: [{ id: 'pop', domain: 'town', prior: 'uniform' }],
  mechanisms: [{ id: 'pl', domain: 'town', kind: 'planar-laplace', epsilon: 1 }],
});
const comparison = {
  id: 'compare',
  domain: 'town',
  prior: 'pop',
  epsilon: Math.log(4),
  epsilonText: 'ln 4',
  kinds: ['tight', 'planar-laplace+remap'],
  mechanisms: ['pl'],
};
const audit = {
  id: 'audit-1',
  domain: 'grid:4x4:step=0.5',
  epsilon: Math.log(4),
  epsilonText: 'ln 4',
  confidence: 0.99,
  file: { name: 'vendor.csv', size: 1234, sha256: 'a'.repeat(64) },
};
const refused = (p: unknown): string => {
  try {
    parseProject(JSON.stringify(p), 'study.json');
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
};

describe('comparisons and audits in a project file', () => {
  it('a project without them opens unchanged (no field added)', () => {
    const p = parseProject(JSON.stringify(base), 'old.json');
    expect('comparisons' in p).toBe(false);
    expect('audits' in p).toBe(false);
    expect(p.mechanisms).toEqual(base.mechanisms);
  });

  it('a comparison and an audit round-trip, the eps as typed', () => {
    const p = parseProject(JSON.stringify({ ...base, comparisons: [comparison], audits: [audit] }), 'new.json');
    expect(p.comparisons).toEqual([comparison]);
    expect(p.audits).toEqual([audit]);
    const again = parseProject(JSON.stringify(p), 'again.json');
    expect(again.audits![0]!.epsilonText).toBe('ln 4');
    expect(again.audits![0]!.file).toEqual({ name: 'vendor.csv', size: 1234, sha256: 'a'.repeat(64) });
  });

  it('bad items are refused with one message naming the field', () => {
    expect(refused({ ...base, audits: [{ ...audit, file: { ...audit.file, sha256: 'xyz' } }] })).toBe(
      "study.json field 'audits.0.file.sha256': a file sha256 is 64 lowercase hex digits",
    );
    expect(refused({ ...base, comparisons: [{ ...comparison, mechanisms: ['gone'] }] })).toBe(
      "study.json field 'comparisons.0.mechanisms.0': unknown mechanism 'gone'",
    );
    expect(refused({ ...base, comparisons: [{ ...comparison, kinds: ['laplace'] }] })).toMatch(
      /^study\.json field 'comparisons\.0\.kinds\.0': a compared kind is one of planar-laplace, /,
    );
    expect(refused({ ...base, audits: [audit, audit] })).toBe(
      "study.json field 'audits.1.id': duplicate audits id 'audit-1'",
    );
  });
});
