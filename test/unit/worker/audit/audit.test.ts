import { describe, expect, it } from 'vitest';
import { auditSamples, samplesToDetect } from '../../../../src-worker/audit/audit';
import { parseDomainSpec } from '../../../../src-worker/metric/parse-domain-spec';
import { randomisedResponse } from '../../../../src-worker/mechanism/randomised-response';
import { truncatedGeometric } from '../../../../src-worker/mechanism/truncated-geometric';
import { closedFormMechanism } from '../../../../src-worker/mechanism/closed-form-by-kind';
import type { Domain } from '../../../../src-worker/metric/domain';
import type { RowSource } from '../../../../src-worker/mechanism/channel';
import { simulate } from './audit-sim';

function run(domain: Domain, channel: RowSource, perSecret: number, seed: number, epsilon: number, confidence = 0.99) {
  const s = simulate(channel, perSecret, seed);
  return auditSamples(
    { ...s, n: domain.n, m: channel.cols, distance: (a, b) => domain.distance(a, b) },
    { epsilon, confidence },
  );
}

describe('audit soundness (simulation)', () => {
  // A mechanism meeting its claim exactly must be refuted in at most 1 - confidence of the runs, however the samples
  // fall.
  it('k-RR at eps 1 claimed 1: at most 10% of 300 seeded runs refute it at confidence 0.9', () => {
    const d = parseDomainSpec('clique:4');
    const ch = randomisedResponse(d, 1).channel;
    let refuted = 0;
    let maxBound = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = run(d, ch, 1500, seed, 1, 0.9);
      if (r.verdict === 'refuted') refuted++;
      maxBound = Math.max(maxBound, r.epsilonLowerBound);
    }
    expect(refuted).toBeLessThanOrEqual(30);
    // The bound comes close to the truth (the test could fail): within 0.25 of eps 1 in the best run.
    expect(maxBound).toBeGreaterThan(0.75);
  });

  it('the truncated geometric on line:8 at eps 0.7 claimed 0.7: at most 10% of 200 seeded runs refute it at confidence 0.9', () => {
    const d = parseDomainSpec('line:8');
    const ch = truncatedGeometric(d, 0.7).channel;
    let refuted = 0;
    for (let seed = 1; seed <= 200; seed++)
      if (run(d, ch, 1000, 1000 + seed, 0.7, 0.9).verdict === 'refuted') refuted++;
    expect(refuted).toBeLessThanOrEqual(20);
  });

  it('planar Laplace on grid:5x5 at eps 0.8 claimed 0.8: at most 10% of 60 seeded runs refute it at confidence 0.9', () => {
    const d = parseDomainSpec('grid:5x5');
    const ch = closedFormMechanism('planar-laplace', d, 0.8).channel;
    let refuted = 0;
    for (let seed = 1; seed <= 60; seed++) if (run(d, ch, 300, 5000 + seed, 0.8, 0.9).verdict === 'refuted') refuted++;
    expect(refuted).toBeLessThanOrEqual(6);
  });

  it('a claim below the truth is refuted: k-RR at eps 1 claimed 0.8, 20,000 samples per secret', () => {
    const d = parseDomainSpec('clique:4');
    const r = run(d, randomisedResponse(d, 1).channel, 20_000, 3, 0.8);
    expect(r.verdict).toBe('refuted');
    expect(r.epsilonLowerBound).toBeGreaterThan(0.9);
    expect(r.epsilonLowerBound).toBeLessThanOrEqual(1);
  });
});

describe('audit power', () => {
  it('k-RR on 4 values at eps 1.5, 20,000 samples per secret: the 99% lower bound reaches about 1.4 (three seeds)', () => {
    const d = parseDomainSpec('clique:4');
    const ch = randomisedResponse(d, 1.5).channel;
    for (const seed of [7, 8, 9]) {
      const r = run(d, ch, 20_000, seed, 1);
      expect(r.epsilonLowerBound).toBeGreaterThan(1.38);
      expect(r.epsilonLowerBound).toBeLessThan(1.5);
      expect(r.verdict).toBe('refuted');
      expect(r.samples).toBe(80_000);
      expect(Math.abs(r.selectionSamples - 20_000)).toBeLessThan(500);
      expect(r.tested.length).toBe(4);
      // The witness: k-RR's best event for (a, b) is {a}.
      const w = r.witness!;
      expect([...w.event]).toEqual([w.a]);
      expect(w.distance).toBe(1);
      expect(w.bound).toBe(r.epsilonLowerBound);
    }
  });

  it('planar Laplace on grid:12x12 at eps 0.7, 200 reports per cell, claimed 0.1: refuted by an event nearer to a than to b', () => {
    const d = parseDomainSpec('grid:12x12');
    const ch = closedFormMechanism('planar-laplace', d, 0.7).channel;
    for (const seed of [1, 2]) {
      const r = run(d, ch, 200, seed, 0.1);
      expect(r.verdict).toBe('refuted');
      expect(r.epsilonLowerBound).toBeGreaterThan(0.2);
      expect(r.epsilonLowerBound).toBeLessThan(0.7);
      const w = r.witness!;
      expect(w.event.includes(w.a)).toBe(true);
      expect(w.event.includes(w.b)).toBe(false);
    }
  });

  it('the samples needed to detect a violation fall as it grows, and match a direct audit', () => {
    // k-RR on 4 values: P(E|b) = 1 / (e^eps + 3) for E = {a}.
    const q = 1 / (Math.exp(1.5) + 3);
    const n15 = samplesToDetect(1, 1.5, 1, q, 4, 0.99)!;
    const n2 = samplesToDetect(1, 2, 1, 1 / (Math.exp(2) + 3), 4, 0.99)!;
    expect(n15).toBeGreaterThan(300);
    expect(n15).toBeLessThan(1500);
    expect(n2).toBeLessThan(n15);
    expect(samplesToDetect(1, 0.9, 1, q, 4, 0.99)).toBeNull();
    // At 4x the samples needed, a simulated audit refutes eps 1 in most seeded runs.
    const d = parseDomainSpec('clique:4');
    const ch = randomisedResponse(d, 1.5).channel;
    let refuted = 0;
    for (let seed = 1; seed <= 20; seed++) if (run(d, ch, 4 * n15, seed, 1).verdict === 'refuted') refuted++;
    expect(refuted).toBeGreaterThanOrEqual(18);
  });
});

describe('an audit with nothing to test gives no verdict', () => {
  const line = parseDomainSpec('line:5');
  const audit = (secrets: number[], outputs: number[], distance = (a: number, b: number) => line.distance(a, b)) =>
    auditSamples(
      { secrets: Int32Array.from(secrets), outputs: Int32Array.from(outputs), n: 5, m: 5, distance },
      { epsilon: 1 },
    );

  it('samples of one secret: not tested, 0 pairs, and the reason in one line', () => {
    const r = audit(
      new Array<number>(400).fill(2),
      Array.from({ length: 400 }, (_, i) => i % 5),
    );
    expect(r.verdict).toBe('not-tested');
    expect(r.tested.length).toBe(0);
    expect(r.untested).toEqual({ kind: 'too-few-secrets', secrets: 1 });
  });

  it('a second secret with one sample, or secrets no distance apart: not tested, saying why', () => {
    const one = audit([...new Array<number>(400).fill(2), 3], [...Array.from({ length: 400 }, (_, i) => i % 5), 0]);
    expect(one.verdict).toBe('not-tested');
    expect(one.untested).toEqual({ kind: 'too-few-sampled', sampled: 1, secrets: 2 });
    const far = audit(
      Array.from({ length: 800 }, (_, i) => (i % 2) * 4),
      Array.from({ length: 800 }, (_, i) => i % 5),
      () => Infinity,
    );
    expect(far.verdict).toBe('not-tested');
    expect(far.untested).toEqual({ kind: 'no-usable-pair', sampled: 2 });
  });

  it('two secrets with samples are tested as before', () => {
    const r = audit(
      Array.from({ length: 800 }, (_, i) => i % 2),
      Array.from({ length: 800 }, (_, i) => i % 2),
    );
    expect(r.tested.length).toBeGreaterThan(0);
    expect(r.verdict).toBe('refuted');
    expect(r.untested).toBeNull();
  });
});
