/**
 * The CLI's readable mechanism output lists the construction facts in the app's words (fact-rows.ts), under a heading;
 * the --json keys carry the typed notes' words where docs/cli.md promises a `note` saying why.
 */
import { describe, expect, it } from 'vitest';
import { jsonFor, readable } from '../../../../src-main/cli/output';
import type { JobRequest } from '../../../../src-shared/protocol/index';
import { silentContext } from '../../../../src-worker/jobs/context';
import { runJob } from '../../support/run-job';

const TG: JobRequest = { type: 'mechanism', kind: 'tg', domain: 'line:6', epsilon: 0.5 };

describe('CLI readable mechanism output', () => {
  it('a truncated geometric: how it was computed, in words, after the figures', async () => {
    const r = await runJob<'mechanism'>(TG);
    const text = readable(TG, r);
    expect(text.split('\n').slice(-4)).toEqual([
      'how it was computed:',
      '  construction: closed form (an exact formula, no solver)',
      '  geometric decay per unit of distance (e^-ε): 0.606531',
      '  largest value on the line (values 0 to k): 5',
    ]);
    expect(text).not.toMatch(/\b[a-zA-Z_]\w*=[\w.-]|SPEC\s*§/);
  });

  it('an earlier result: its values without a typed place as recorded; nothing known: no heading', async () => {
    const r = await runJob<'mechanism'>(TG);
    const old = readable(TG, {
      ...r,
      facts: { kind: 'none' },
      factsAsRecorded: [{ name: 'effectiveEpsilonNote', value: 'not measured' }],
    });
    expect(old.split('\n').slice(-2)).toEqual([
      'how it was computed:',
      '  effective epsilon note (as recorded): not measured',
    ]);
    expect(readable(TG, { ...r, facts: { kind: 'none' } })).not.toContain('how it was computed');
  });
});

describe('CLI readable audit output', () => {
  it('a log of one secret: "not tested" and why, once, never "not refuted"', async () => {
    const req: JobRequest = {
      type: 'audit',
      domain: 'line:5',
      epsilon: 1,
      text: `secret,released\n${Array.from({ length: 40 }, (_, i) => `2,${i % 5}`).join('\n')}\n`,
    };
    const text = readable(req, await runJob<'audit'>(req));
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      'not tested: the log has samples of 1 secret; an audit needs two (no verdict on the claimed ε = 1: these samples can neither refute nor support it)',
    );
    expect(lines[1]).toBe('witness: none');
    expect(text).not.toMatch(/not refuted|note:/);
    expect(jsonFor(req, await runJob<'audit'>(req)).note).toBe('the log has samples of 1 secret; an audit needs two');
  });
});

describe('CLI --json candidates of an optimal request', () => {
  it("the flat `candidates` say why in words, the typed `lp` record keeps the note's value", async () => {
    const req: JobRequest = {
      type: 'mechanism',
      kind: 'optimal',
      domain: 'grid:4x4',
      epsilon: 0.5,
      loss: 'dist',
      lpModel: 'exact',
      lpThreads: 1,
    };
    // stopped before its first round: the candidates are all it needs
    const stop = new Int32Array(new SharedArrayBuffer(4));
    stop[0] = 1;
    const r = await runJob<'mechanism'>(req, { ...silentContext(), stopFlag: stop });
    const o = jsonFor(req, r) as {
      candidates: { construction: string; note?: string }[];
      lp: { candidates: { construction: string; note?: unknown }[] };
    };
    const tight = (c: { construction: string }) => c.construction === 'tight+remap';
    expect(o.candidates.find(tight)!.note).toBe(
      'does not exist at this ε: its output weight at (1,2) would have to be negative',
    );
    expect(o.lp.candidates.find(tight)!.note).toEqual({ kind: 'tight-does-not-exist', minZAt: '(1,2)' });
  }, 60_000);
});
