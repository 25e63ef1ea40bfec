/**
 * Fuzz: 600 malformed job requests (random JSON, wrong types, huge sizes,
 * NaN, negative eps, broken domains/priors/channels) sent to the REAL
 * dispatcher and worker pool. Every one must end in one clear error (an
 * ApiError with a known code and a one-line message, no stack trace), and
 * the pool must still run a real job afterwards.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src-shared/protocol/api';
import { parseJobRequest } from '../../src-shared/protocol/validate';
import { seededRandom } from '../../src-shared/numeric/seeded-random';
import { suiteDispatcher } from './dispatcher-fixture';

// deterministic PRNG (mulberry32) so a failure is reproducible
const rand = seededRandom(12345);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const junk: readonly unknown[] = [
  null,
  undefined,
  0,
  -1,
  NaN,
  Infinity,
  -Infinity,
  '',
  'x'.repeat(10_000),
  true,
  [],
  {},
  [1, 2, 3],
  { a: { b: { c: [] } } },
  '{"type":"mechanism"}',
  1e308,
  -0,
  [NaN],
  ['line:3'],
];
// eslint-disable-next-line no-loss-of-precision -- 1e-400 underflows to 0 on purpose: a positive-looking epsilon that is 0
const badEps: readonly unknown[] = [0, -1, -0.5, NaN, Infinity, -Infinity, '1', null, [], {}, 1e-400, true];
const badDomains: readonly unknown[] = [
  '',
  ' ',
  'line',
  'line:',
  'line:0',
  'line:-3',
  'line:2.5',
  'line:abc',
  'line:1e12',
  'ring:0',
  'clique:-1',
  'grid:0x3',
  'grid:3',
  'grid:1000000x1000000',
  'grid:3x3:step=-1',
  'grid:3x3:metric=taxicab',
  'hamming:0',
  'hamming:200',
  'db:0,3',
  'db:1000,1000',
  'db:3,3:metric=banana',
  'sum:-1,3',
  'kcount:0,3',
  'foo:3',
  'csv:/definitely/not/here.csv',
  'graph:/nope.txt',
  'x'.repeat(5000),
  42,
  null,
  [],
  { kind: 'custom', labels: ['a', 'b'], distances: [0, 1, 1] },
  { kind: 'custom', labels: ['a', 'b'], distances: [0, -1, -1, 0] },
  { kind: 'custom', labels: ['a', 'b', 'c'], distances: [0, 1, 5, 1, 0, 1, 5, 1, 0] },
  { kind: 'custom', labels: ['a', 'b'], distances: [0, 1, 2, 0] },
  { kind: 'graph', labels: ['a'], edges: [[0, 3]] },
  { kind: 'nope' },
];
const badPriors: readonly unknown[] = [
  'nonuniform',
  { kind: 'vector', values: [0.5, 0.6] },
  { kind: 'vector', values: [NaN] },
  { kind: 'vector', values: [-0.5, 1.5, 0] },
  { kind: 'vector', values: [] },
  { kind: 'product', values: [0.5, 0.5] },
  { kind: 'vector', values: [1, 0] },
  7,
  [0.5, 0.5],
];
/** The request types a malformed request is built on: those of the seven one-job commands, a sweep, a project run. */
const COMMAND_TYPES = ['mechanism', 'measure', 'check', 'capacity', 'regular', 'threshold', 'vertices'] as const;
const kinds = [...COMMAND_TYPES, 'sweep', 'run-project'] as const;

/** One malformed request: a valid-looking base with one or two things broken. */
function malformed(): unknown {
  const r = rand();
  if (r < 0.12) return pick(junk);
  const type = rand() < 0.05 ? pick(['Mechanism', 'mech', '', 'run', 42]) : pick(kinds);
  const base: Record<string, unknown> = { type, domain: 'line:4' };
  if (type !== 'threshold' && type !== 'sweep' && type !== 'run-project') base.epsilon = 1;
  if (type === 'mechanism') base.kind = 'tg';
  if (type === 'sweep') Object.assign(base, { kinds: ['tg'], from: 0.5, to: 1, steps: 3 });
  if (type === 'regular') base.prior = 'uniform';
  if (type === 'measure' || type === 'check')
    base.channel = { rows: 1, cols: 1, data: [1], rowLabels: ['a'], colLabels: ['a'] };
  if (type === 'run-project') base.project = { version: 1, name: 'p', domains: [{ id: 'd', domain: 'line:3' }] };
  // breakers marked true change values the schema may accept; the engine must then refuse them
  const breakers: [() => void, boolean][] = (
    [
      () => (base.epsilon = pick(badEps)),
      () => (base.domain = pick(badDomains)),
      () => delete base.domain,
      () => delete base.epsilon,
      () => (base.kind = pick(['zz', '', 7, null, 'TG', 'optimal '])),
      () => (base.prior = pick(badPriors)),
      () =>
        (base.loss = pick([
          'l2',
          7,
          { kind: 'matrix', rows: 2, cols: 2, data: [1] },
          { kind: 'matrix', rows: -1, cols: 2, data: [] },
        ])),
      () =>
        (base.channel = pick([
          { rows: 2, cols: 2, data: [1, 0, 0], rowLabels: ['a', 'b'], colLabels: ['a', 'b'] },
          { rows: 1e9, cols: 1e9, data: [], rowLabels: [], colLabels: [] },
          { rows: 2, cols: 1, data: [NaN, 1], rowLabels: ['a', 'b'], colLabels: ['y'] },
          { rows: 2, cols: 2, data: [0.9, 0.9, 0.5, 0.5], rowLabels: ['a', 'b'], colLabels: ['y', 'z'] },
          { rows: 2, cols: 2, data: [1.5, -0.5, 0.5, 0.5], rowLabels: ['a', 'b'], colLabels: ['y', 'z'] },
          'channel.csv',
        ])),
      () => (base.steps = pick([0, 1, 1e9, -3, 2.5, NaN])),
      () => Object.assign(base, { from: pick([3, NaN, -1]), to: pick([1, -2, Infinity]) }),
      () =>
        (base.project = pick([
          { version: 3, name: 'p', domains: [] },
          { version: 1, name: '', domains: [] },
          { version: 1, name: 'p', domains: [{ id: 'bad id!', domain: 'line:3' }] },
          {
            version: 1,
            name: 'p',
            domains: [{ id: 'd', domain: 'line:3' }],
            mechanisms: [{ id: 'm', domain: 'nope', kind: 'tg', epsilon: 1 }],
          },
          {
            version: 1,
            name: 'p',
            domains: [
              { id: 'd', domain: 'line:3' },
              { id: 'd', domain: 'line:4' },
            ],
          },
          'project.json',
        ])),
      () => (base.out = pick([7, '', {}])),
      () => (base.inlineLimit = pick([-1, 1e12, 0.5, 'all'])),
    ] as (() => void)[]
  ).map((f, i) => [f, i === 1 || i === 5 || i === 7]);
  const nb = rand() < 0.7 ? 1 : 2;
  let semantic = false;
  for (let k = 0; k < nb; k++) {
    const [f, sem] = pick(breakers);
    f();
    semantic ||= sem;
  }
  // Deleting a field a job does not need, or a semantic break on a field the job ignores, can leave a
  // valid request: break it for sure then (an out-of-range or unknown epsilon).
  if (parseJobRequest(base).ok && !semantic) base.epsilon = pick([-1, 0, NaN]);
  return base;
}

describe('fuzzing the dispatcher with malformed requests', () => {
  const dispatcher = suiteDispatcher({ threads: 2, maxOldGenerationSizeMb: 512 });

  it('gives every one of 600 malformed requests one clear error, and survives', async () => {
    const d = dispatcher();
    const codes = new Map<string, number>();
    const requests = Array.from({ length: 600 }, malformed);
    let rejectedAtSubmit = 0;
    let resolved = 0;
    const outcomes = await Promise.all(
      requests.map(async (r) => {
        try {
          const res = await d.run(r);
          resolved++;
          return { request: r, ok: true as const, res };
        } catch (e) {
          if (!(e instanceof ApiError))
            throw new Error(`not an ApiError for ${JSON.stringify(r)?.slice(0, 200)}: ${String(e)}`, { cause: e });
          if (e.message.startsWith('malformed') === false && e.code === 'invalid-input') rejectedAtSubmit++;
          codes.set(e.code, (codes.get(e.code) ?? 0) + 1);
          return { request: r, ok: false as const, code: e.code, message: e.message };
        }
      }),
    );
    for (const o of outcomes) {
      if (o.ok) {
        // the only acceptable success is a request the fuzzer did not actually break
        throw new Error(`malformed request produced a result: ${JSON.stringify(o.request).slice(0, 300)}`);
      }
      expect(['invalid-input', 'not-a-metric', 'too-large', 'not-applicable', 'internal']).toContain(o.code);
      // an internal error is only acceptable for an engine piece that has not landed, never a bug
      if (o.code === 'internal') expect(o.message).toMatch(/not part of the engine yet/);
      expect(o.message.length).toBeGreaterThan(5);
      expect(o.message).not.toMatch(/\n\s+at /); // no stack trace
      expect(o.message).not.toMatch(/^internal error: (Cannot read|undefined is not|.* is not a function)/); // no JS TypeError leaks
    }
    expect(resolved).toBe(0);
    expect(rejectedAtSubmit).toBeGreaterThan(300);
    // the pool still works
    const ok = await d.run({ type: 'vertices', domain: 'line:3', epsilon: Math.LN2 });
    expect(ok).toMatchObject({ type: 'vertices', vertices: 4 });
    expect(d.activeJobs).toBe(0);
  });
});
