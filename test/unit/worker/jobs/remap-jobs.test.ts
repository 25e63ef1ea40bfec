/**
 * The remap in the protocol and jobs: `remap` needs a loss; a
 * remap job is priced (one more pass than the plain mechanism); a remapped
 * mechanism job returns C . R and a record whose numbers are the engine's;
 * measure and check of a remapped spec see C . R.
 */
import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { admitRequest } from '../../../../src-worker/jobs/admission';
import { silentContext } from '../../../../src-worker/jobs/context';
import { runJobRequest } from '../../../../src-worker/jobs/run';
import { planarLaplace } from '../../../../src-worker/mechanism/planar-laplace';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import { projectSchema } from '../../../../src-shared/protocol/project';
import { remapMechanism } from '../../../../src-worker/remap/bayes-remap';
import { projectWith } from '../../support/project-fixture';

const prior = (n: number): number[] => {
  const w = Array.from({ length: n }, (_, i) => 1 + ((i * 7) % 5));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
};

describe('remap in requests', () => {
  it('needs a loss (the prior defaults to uniform, as everywhere in requests)', () => {
    const base = { type: 'mechanism', domain: 'line:4', epsilon: 1, kind: 'tg', remap: true };
    expect(parseJobRequest(base).ok).toBe(false);
    expect(parseJobRequest({ ...base, loss: 'dist' }).ok).toBe(true);
    expect(parseJobRequest({ ...base, prior: 'uniform' }).ok).toBe(false);
    expect(parseJobRequest({ ...base, prior: 'uniform', loss: 'dist' }).ok).toBe(true);
    expect(
      parseJobRequest({ type: 'measure', mechanism: { domain: 'line:4', epsilon: 1, kind: 'tg', remap: true } }).ok,
    ).toBe(false);
    const proj = projectWith(
      { d: 'line:4' },
      { priors: [], mechanisms: [{ id: 'm', domain: 'd', kind: 'tg', epsilon: 1, remap: true }], analyses: [] },
    );
    expect(projectSchema.safeParse(proj).success).toBe(false);
  });

  it('a remap job is priced: one pass more than the plain mechanism (grid:160x160 fits once, not twice)', () => {
    const plain = { type: 'mechanism' as const, domain: 'grid:160x160', epsilon: 1, kind: 'planar-laplace' as const };
    expect(() => admitRequest(plain)).not.toThrow();
    let err: unknown;
    try {
      admitRequest({ ...plain, prior: 'uniform', loss: 'dist', remap: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('too-large');
    expect((err as MechError).message).toMatch(/remapped planar-laplace/);
    expect(() =>
      admitRequest({
        type: 'apply',
        mechanism: { ...plain, prior: 'uniform', loss: 'dist', remap: true },
        input: '/x',
        out: '/y',
      }),
    ).toThrow(/remapped/);
  });
});

describe('remapped mechanism jobs', () => {
  const pi = prior(25);
  const spec = {
    domain: 'grid:5x5',
    epsilon: 0.9,
    kind: 'planar-laplace' as const,
    prior: { kind: 'vector' as const, values: pi },
    loss: 'dist' as const,
    remap: true,
  };

  it('return C . R with the engine record; measure and check see the remapped channel', async () => {
    const r = await runJobRequest({ type: 'mechanism', ...spec }, silentContext());
    if (r.type !== 'mechanism' || !r.exists) throw new Error('expected a mechanism');
    const d = gridDomain(5, 5);
    const mech = planarLaplace(d, 0.9);
    const e = remapMechanism(mech, d, Float64Array.from(pi), { kind: 'dist' });
    expect(r.remap!.remappedLoss).toBe(e.remappedLoss);
    expect(r.remap!.originalLoss).toBe(e.originalLoss);
    expect(r.remap!.improvement).toBe(e.originalLoss! - e.remappedLoss);
    expect(r.expectedLoss).toBe(e.remappedLoss);
    const buf = new Float64Array(25);
    for (let x = 0; x < 25; x++) {
      const want = e.channel.row(x, buf);
      for (let w = 0; w < 25; w++) expect(r.matrix!.data[x * 25 + w]).toBe(want[w]);
    }
    expect(r.effectiveEpsilon!).toBeLessThanOrEqual(0.9 * (1 + 1e-9));
    const m = await runJobRequest(
      { type: 'measure', mechanism: spec, loss: 'dist', domain: 'grid:5x5', prior: spec.prior },
      silentContext(),
    );
    if (m.type !== 'measure') throw new Error('expected measure');
    // the face-value error of C . R is the remapped loss
    expect(m.qualityLoss).toBeCloseTo(e.remappedLoss, 14);
    const c = await runJobRequest(
      { type: 'check', mechanism: spec, domain: 'grid:5x5', epsilon: 0.9 },
      silentContext(),
    );
    if (c.type !== 'check') throw new Error('expected check');
    expect(c.private).toBe(true);
  });
});
