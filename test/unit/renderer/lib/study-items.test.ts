/**
 * Comparisons and audits as project items (src-renderer/lib/study-items.ts, lib/audit-item.ts): kept one per grid,
 * audits numbered, kept valid across deletions and renames; the audit's numbers read as every eps field reads them; a
 * failure names the samples file; the points grids point samples are binned on.
 */
import { describe, expect, it } from 'vitest';
import { townProject } from '../../support/project-fixture';
import {
  addAudit,
  comparisonOf,
  pruneStudyItems,
  putComparison,
  renameInStudyItems,
} from '../../../../src-renderer/lib/study-items';
import { auditMessage, auditNumbers, pointsGrids, sha256Hex } from '../../../../src-renderer/lib/audit-item';
import type { ProjectInput } from '../../../../src-shared/protocol/index';

const binning = { rows: 4, cols: 4, cellKm: 0.5, xMin: 0, yMax: 2, projection: null };
function project(): ProjectInput {
  return townProject('p', {
    priors: [
      {
        id: 'homes',
        domain: 'town',
        prior: 'uniform',
        points: { file: 'homes.csv', binning, box: null, smoothing: 0, inside: 9, outside: 0 },
      },
    ],
    mechanisms: [
      { id: 'a', domain: 'town', kind: 'planar-laplace', epsilon: 1 },
      { id: 'b', domain: 'town', kind: 'tight', epsilon: 1 },
    ],
    analyses: [],
  });
}

describe('comparisons and audits in the project', () => {
  it('one comparison per grid, replaced when run again', () => {
    const p = project();
    putComparison(p, { id: 'town', domain: 'town', epsilon: 1, kinds: [], mechanisms: ['a'] });
    putComparison(p, {
      id: 'town',
      domain: 'town',
      prior: 'homes',
      epsilon: 2,
      kinds: ['tight'],
      mechanisms: ['a', 'b'],
    });
    expect(p.comparisons).toHaveLength(1);
    expect(comparisonOf(p, 'town')?.epsilon).toBe(2);
  });

  it('a deleted mechanism or prior leaves the comparisons, a renamed one is renamed in them', () => {
    const p = project();
    putComparison(p, { id: 'town', domain: 'town', prior: 'homes', epsilon: 1, kinds: [], mechanisms: ['a', 'b'] });
    addAudit(p, {
      domain: 'grid:4x4:step=0.5',
      pointsPrior: 'homes',
      points: binning,
      epsilon: 1,
      epsilonText: '1',
      confidence: 0.99,
    });
    renameInStudyItems(p, 'mechanism', 'b', 'b2');
    renameInStudyItems(p, 'prior', 'homes', 'people');
    expect(comparisonOf(p, 'town')).toMatchObject({ prior: 'people', mechanisms: ['a', 'b2'] });
    expect(p.audits![0]!.pointsPrior).toBe('people');
    p.mechanisms = p.mechanisms!.filter((m) => m.id !== 'a').map((m) => ({ ...m, id: 'b2' }));
    p.priors = [];
    pruneStudyItems(p);
    expect(comparisonOf(p, 'town')).toEqual({ id: 'town', domain: 'town', epsilon: 1, kinds: [], mechanisms: ['b2'] });
    expect(p.audits![0]!.pointsPrior).toBeUndefined();
    p.domains = [];
    pruneStudyItems(p);
    expect(p.comparisons).toEqual([]);
  });

  it('audits are numbered audit-1, audit-2, … and never reuse an id', () => {
    const p = project();
    const a = { domain: 'line:3', epsilon: 1, epsilonText: '1', confidence: 0.99 };
    expect([addAudit(p, a), addAudit(p, a)]).toEqual(['audit-1', 'audit-2']);
    p.audits!.shift();
    expect(addAudit(p, a)).toBe('audit-3');
  });

  it('the claimed eps takes expressions; a bad one gets one message', () => {
    expect(auditNumbers('ln 4', '0.99', '')).toEqual({ ok: true, epsilon: Math.log(4), confidence: 0.99 });
    expect(auditNumbers('ln(2)/2', '0.95', '1, ln 8')).toEqual({
      ok: true,
      epsilon: Math.log(2) / 2,
      confidence: 0.95,
      detect: [1, Math.log(8)],
    });
    expect(auditNumbers('0', '0.99', '')).toEqual({
      ok: false,
      problem: 'the claimed ε must be more than 0 (you entered 0)',
    });
    expect(auditNumbers('1', '1', '')).toEqual({
      ok: false,
      problem: 'the confidence must be less than 1 (you entered 1)',
    });
  });

  it('a failure names the samples file', () => {
    expect(auditMessage('samples CSV (released), line 3, column x: the value is not a decimal number', 'log.csv')).toBe(
      'samples CSV log.csv (released), line 3, column x: the value is not a decimal number',
    );
    expect(auditMessage('domain too large', 'log.csv')).toBe('log.csv: domain too large');
    expect(auditMessage('samples CSV log.csv: empty', 'log.csv')).toBe('samples CSV log.csv: empty');
  });

  it('the points grids are the priors imported from points; the SHA-256 is the standard one', async () => {
    expect(pointsGrids(project())).toEqual([
      { prior: 'homes', domain: 'grid:4x4:step=0.5', label: 'Town: homes, from homes.csv (x,y)', binning },
    ]);
    expect(await sha256Hex(new TextEncoder().encode('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
