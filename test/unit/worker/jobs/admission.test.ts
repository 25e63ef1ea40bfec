/**
 * Hostile job requests through the worker's own path (parseJobRequest ->
 * runJobRequest, in-process, no pool): every one ends in ONE MechError with
 * a user-facing code, quickly (the admission estimate refuses before any
 * allocation), and valid requests at the edge of the limits still succeed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { silentContext, type JobContext } from '../../../../src-worker/jobs/context';
import { runJobRequest } from '../../../../src-worker/jobs/run';
import { admitJob, admitRequest } from '../../../../src-worker/jobs/admission';
import { sizeOfDomainInput } from '../../../../src-worker/jobs/domain-size';
import { resolveDomain } from '../../../../src-worker/jobs/resolve';
import { ADMISSION_LIMITS } from '../../../../src-worker/base/admission-limits';
import { withRowProgress } from '../../../../src-worker/jobs/row-progress';
import { FunctionRowSource } from '../../../../src-worker/mechanism/function-row-source';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import type { JobRequest } from '../../../../src-shared/protocol/requests';
import { uniformPrior, validatePrior } from '../../../../src-worker/measure/prior';
import { runJob } from '../../support/run-job';

const USER_CODES = new Set(['invalid-input', 'too-large', 'not-a-metric', 'not-applicable']);

let dir = '';
let fifo = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mech-admission-'));
  fifo = join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  // a 3000-point metric: the header alone says it is too large to validate (the body is never parsed)
  writeFileSync(join(dir, 'm3000.csv'), ',' + Array.from({ length: 3000 }, (_, i) => `p${i}`).join(',') + '\n');
  writeFileSync(join(dir, 'hex.csv'), ',a,b\na,0,0x1A\nb,0x1A,0\n');
  writeFileSync(join(dir, 'dup.csv'), ',a,b,a\na,0,1,1\nb,1,0,1\na,1,1,0\n');
  writeFileSync(join(dir, 'secret.csv'), 'TOPSECRET-LINE-ONE:x:0:0\nTOPSECRET-LINE-TWO\n');
  writeFileSync(join(dir, 'secret-edges.csv'), 'TOPSECRET,a,b\n');
  writeFileSync(join(dir, 'big.csv'), Buffer.alloc(ADMISSION_LIMITS.maxFileBytes + 10, 0x31));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Run a raw request as the worker does; resolve to the error (or fail when it succeeds), with the progress messages
 * the job reported before it (a refused job reports at most that it is building its mechanism).
 */
async function refusal(raw: unknown): Promise<{ code: string; message: string; progressed: string[] }> {
  const progressed: string[] = [];
  const ctx: JobContext = { ...silentContext(), progress: (_fraction, message) => void progressed.push(message) };
  const parsed = parseJobRequest(raw);
  if (!parsed.ok) return { code: parsed.error.code, message: parsed.error.message, progressed };
  try {
    await runJobRequest(parsed.value, ctx);
  } catch (e) {
    if (!(e instanceof MechError))
      throw new Error(`${JSON.stringify(raw)} threw a ${(e as Error)?.name}: ${(e as Error)?.message}`, { cause: e });
    return { code: e.code, message: e.message, progressed };
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
}

const ok = async (raw: unknown): Promise<Record<string, unknown>> =>
  (await runJob(raw)) as unknown as Record<string, unknown>;

const mech = (domain: string, kind: string, extra: Record<string, unknown> = {}) => ({
  type: 'mechanism',
  domain,
  epsilon: 1,
  kind,
  ...extra,
});
/** A mechanism named by its construction (inside measure/check requests). */
const spec = (domain: string, kind: string) => ({ domain, epsilon: 1, kind });
const eye6 = {
  rows: 6,
  cols: 6,
  data: Array.from({ length: 36 }, (_, k) => (k % 7 === 0 ? 1 : 0)),
  rowLabels: ['a', 'b', 'c', 'd', 'e', 'f'],
  colLabels: ['a', 'b', 'c', 'd', 'e', 'f'],
};

describe('admission: hostile job requests end in one typed error, before computing', () => {
  const cases: [string, () => unknown, string, RegExp][] = [
    [
      'line:1e9 laplace',
      () => mech('line:1000000000', 'laplace'),
      'too-large',
      /line:1000000000 has too many points: 1\.00e\+9, over the limit of 6\.71e\+7/,
    ],
    [
      'line:1e9 capacity',
      () => ({ type: 'capacity', domain: 'line:1000000000', epsilon: 1 }),
      'too-large',
      /too many points/,
    ],
    [
      '6-row channel on line:1e9',
      () => ({ type: 'check', channel: eye6, domain: 'line:1000000000', epsilon: 1 }),
      'invalid-input',
      /the channel has 6 secret rows but the domain line:1000000000 has 1\.00e\+9 points/,
    ],
    [
      '6-row channel measured on line:1e9',
      () => ({ type: 'measure', channel: eye6, domain: 'line:1000000000' }),
      'invalid-input',
      /6 secret rows/,
    ],
    ['line:1e20', () => mech('line:99999999999999999999', 'tg'), 'too-large', /1\.00e\+20/],
    [
      'grid:1e5x1e5',
      () => mech('grid:100000x100000', 'tg'),
      'too-large',
      /grid:100000x100000 has too many points: 1\.00e\+10/,
    ],
    ['hamming:60', () => mech('hamming:60', 'tight'), 'too-large', /too many points/],
    [
      'avg:1000,1000 tight',
      () => mech('avg:1000,1000', 'tight'),
      'too-large',
      /dense n\^3 solve: 1\.00e\+18, over the limit of 4\.00e\+9/,
    ],
    [
      'db:24,2 exponential',
      () => mech('db:24,2', 'exponential'),
      'too-large',
      /entry by entry .* 2\.81e\+14, over the limit of 1\.00e\+9/,
    ],
    [
      'clique:3000 optimal',
      () => mech('clique:3000', 'optimal'),
      'too-large',
      /4498500 pairs x 3000 outputs\): 1\.35e\+10/,
    ],
    [
      'clique:3000 rr checked',
      () => ({ type: 'check', mechanism: spec('clique:3000', 'rr'), domain: 'clique:3000', epsilon: 1 }),
      'too-large',
      /privacy check on clique:3000/,
    ],
    [
      'line:11000 optimal',
      () => mech('line:11000', 'optimal'),
      'too-large',
      /optimal-mechanism LP \(auto model\) on line:11000: the decomposition master would need about \d+ MiB/,
    ],
    [
      'grid:100x100 optimal without a time limit',
      () => mech('grid:100x100', 'optimal', { loss: 'dist' }),
      'too-large',
      /40000 pairs x 10000 outputs\): 4\.00e\+8, over the limit of 2\.00e\+8; .*; or give a time limit \(--time-limit S, timeLimitSeconds\) to get the best of the cheap constructions/,
    ],
    [
      'grid:130x130 optimal with a time limit (its cheap candidates are streamed)',
      () => mech('grid:130x130', 'optimal', { loss: 'dist', timeLimitSeconds: 300 }),
      'too-large',
      /the optimal mechanism on grid:130x130 generates and measures its channel entry by entry .*: 1\.14e\+9, over the limit of 1\.00e\+9/,
    ],
    ['line:200000 rr', () => mech('line:200000', 'rr'), 'too-large', /4\.00e\+10, over the limit of 1\.00e\+9/],
    [
      'planar Laplace on grid:1000x1000',
      () => mech('grid:1000x1000', 'planar-laplace'),
      'too-large',
      /1\.00e\+12, over the limit of 1\.00e\+9; .*a grid of at most 177 x 177/,
    ],
    [
      'capacity grid:20x20',
      () => ({ type: 'capacity', domain: 'grid:20x20', epsilon: 1 }),
      'too-large',
      /MiB of solver memory even after the best symmetry reduction/,
    ],
    [
      'capacity grid:40x40',
      () => ({ type: 'capacity', domain: 'grid:40x40', epsilon: 1 }),
      'too-large',
      /privacy row per constrained pair/,
    ],
    [
      'threshold on sum:1000,8 (Levinson, 8001 points, 1000 eps values)',
      () => ({ type: 'threshold', domain: 'sum:1000,8' }),
      'too-large',
      /threshold search \(up to 1000 eps values\) on sum:1000,8 solves Phi z = 1 by Levinson's O\(n\^2\) Toeplitz recursion per eps: 1\.92e\+11/,
    ],
    [
      'threshold on sum:2000,5 (past Levinson: dense)',
      () => ({ type: 'threshold', domain: 'sum:2000,5' }),
      'too-large',
      /dense n\^3 solve per eps/,
    ],
    [
      'threshold on line:10^6',
      () => ({ type: 'threshold', domain: 'line:1000000' }),
      'too-large',
      /threshold search \(up to 1000 eps values\)/,
    ],
    [
      'sweep of rr on line:20000',
      () => ({ type: 'sweep', domain: 'line:20000', kinds: ['rr'], from: 0.5, to: 2, steps: 10 }),
      'too-large',
      /entry by entry/,
    ],
    [
      'regular on avg:1000,1000',
      () => ({ type: 'regular', domain: 'avg:1000,1000', epsilon: 1, prior: 'uniform' }),
      'too-large',
      /dense n\^3/,
    ],
    [
      'regular on line:3000 (dense LU)',
      () => ({ type: 'regular', domain: 'line:3000', epsilon: 1, prior: 'uniform' }),
      'too-large',
      /mu Phi = pi by a dense n\^3 LU \(closed forms exist only on cliques.*\): 2\.70e\+10/,
    ],
    [
      'vertices on line:1e9',
      () => ({ type: 'vertices', domain: 'line:1000000000', epsilon: 1 }),
      'too-large',
      /limited to n <= 10/,
    ],
    [
      'loss 1e308',
      () =>
        mech('line:3', 'optimal', {
          loss: { kind: 'matrix', rows: 3, cols: 3, data: [0, 1e308, 1e308, 1e308, 0, 1e308, 1e308, 1e308, 0] },
        }),
      'invalid-input',
      /\|loss\| <= 1e\+150/,
    ],
    [
      'csv 3000 points',
      () => mech(`csv:${join(dir, 'm3000.csv')}`, 'rr'),
      'too-large',
      /has 3000 points: checking the triangle inequality takes n\^3 = 2\.70e\+10 steps/,
    ],
    [
      'csv /dev/zero',
      () => mech('csv:/dev/zero', 'rr'),
      'invalid-input',
      /'\/dev\/zero': it is a character device, not a regular file/,
    ],
    [
      'graph /dev/urandom',
      () => mech('graph:/dev/urandom', 'rr'),
      'invalid-input',
      /'\/dev\/urandom': it is a character device/,
    ],
    [
      'csv /proc/self/mem',
      () => mech('csv:/proc/self/mem', 'rr'),
      'invalid-input',
      /'\/proc\/self\/mem': (input\/output error \(EIO\)|permission denied)$/,
    ],
    [
      'graph FIFO',
      () => mech(`graph:${fifo}`, 'rr'),
      'invalid-input',
      /it is a FIFO \(named pipe\), not a regular file/,
    ],
    ['csv directory', () => mech(`csv:${dir}`, 'rr'), 'invalid-input', /it is a directory, not a regular file/],
    ['csv over the byte cap', () => mech(`csv:${join(dir, 'big.csv')}`, 'rr'), 'too-large', /at most 128 MiB are read/],
    ['csv missing', () => mech(`csv:${join(dir, 'nope.csv')}`, 'rr'), 'invalid-input', /: no such file$/],
    [
      'csv hex cell',
      () => mech(`csv:${join(dir, 'hex.csv')}`, 'rr'),
      'invalid-input',
      /line 2, column 3: the cell is not a decimal number/,
    ],
    [
      'csv duplicate labels',
      () => mech(`csv:${join(dir, 'dup.csv')}`, 'rr'),
      'invalid-input',
      /columns 2 and 4 of the header \(line 1\).*rows of line 2 and line 4/,
    ],
    ['grid step hex', () => mech('grid:3x3:step=0x1A', 'tg'), 'invalid-input', /with S a number > 0/],
    ['grid step Infinity', () => mech('grid:3x3:step=Infinity', 'tg'), 'invalid-input', /with S a number > 0/],
    ['grid step 1e999', () => mech('grid:3x3:step=1e999', 'tg'), 'invalid-input', /with S a number > 0/],
    ['line hex', () => mech('line:0x10', 'tg'), 'invalid-input', /expected line:N/],
    ['line exponent', () => mech('line:1e3', 'tg'), 'invalid-input', /expected line:N/],
    ['percentile 1e999', () => mech('percentile:3,2,1e999', 'rr'), 'invalid-input', /P in \(0, 100\]/],
    ['empty domain', () => mech(' ', 'tg'), 'invalid-input', /empty domain/],
    [
      'planar Laplace, eps x step underflows',
      () => mech('grid:2x2:step=1e-300', 'planar-laplace', { epsilon: 5e-324 }),
      'invalid-input',
      /eps x cell size = 5e-324 x 1e-300 underflows to 0/,
    ],
    [
      'planar Laplace, eps x step overflows',
      () => mech('grid:2x2:step=1e300', 'planar-laplace', { epsilon: 1e300 }),
      'invalid-input',
      /overflows/,
    ],
    ['tg on a grid', () => mech('grid:3x3', 'tg'), 'not-applicable', /./],
    [
      'not a metric inline',
      () => mech({ kind: 'custom', labels: ['a', 'b', 'c'], distances: [0, 1, 5, 1, 0, 1, 5, 1, 0] } as never, 'rr'),
      'not-a-metric',
      /triangle inequality/,
    ],
  ];

  it.each(cases)('%s', async (_name, raw, code, message) => {
    const r = await refusal(raw());
    expect(USER_CODES.has(r.code), r.message).toBe(true);
    expect(r.code, r.message).toBe(code);
    expect(r.message).toMatch(message);
    // refused, not computed (these ran for minutes, or for ever, before): no computing step reported progress
    expect(
      r.progressed.filter((m, i) => i > 0 || !/^building \S+ on \S+$/.test(m)),
      r.message,
    ).toEqual([]);
  });

  it('never quotes the content of a file it could not use', async () => {
    const r = await refusal(mech(`csv:${join(dir, 'secret.csv')}`, 'rr'));
    expect(r.code).toBe('invalid-input');
    expect(r.message).not.toMatch(/TOPSECRET/);
    const g = await refusal(mech(`graph:${join(dir, 'secret-edges.csv')}`, 'rr'));
    expect(g.code).toBe('invalid-input');
    expect(g.message).not.toMatch(/TOPSECRET/);
  });

  // without building the domain: line:1e9 or a 1e10-point grid built would exhaust the test's memory (no clock needed)
  it('estimates from the spec alone, without building the domain', () => {
    expect(sizeOfDomainInput('line:1000000000')!.n).toBe(1e9);
    expect(sizeOfDomainInput('grid:100000x100000')!.n).toBe(1e10);
    expect(sizeOfDomainInput('db:24,2')!.n).toBe(2 ** 24);
    expect(sizeOfDomainInput('avg:1000,1000')!.n).toBe(1_000_001);
    expect(sizeOfDomainInput('clique:3000')!.pairs).toBe(4_498_500);
    expect(sizeOfDomainInput('csv:/anything')).toBeNull(); // sized once read (byte-capped)
    for (const req of [
      mech('line:99999999999999999999', 'tg'),
      mech('db:24,2', 'exponential'),
      { type: 'capacity', domain: 'grid:40x40', epsilon: 1 },
    ]) {
      expect(() => admitRequest(req as JobRequest)).toThrow(MechError);
    }
    // the limits sit exactly where the constants block says
    expect(() => admitRequest(mech(`line:${2 ** 21}`, 'tight') as JobRequest)).not.toThrow();
    expect(() => admitRequest(mech(`line:${2 ** 21 + 1}`, 'tight') as JobRequest)).toThrow(
      /solves Phi z = 1 on 2097153 points: 2097153, over the limit of 2097152/,
    );
    expect(() => admitRequest(mech('line:31622', 'laplace') as JobRequest)).not.toThrow();
    expect(() => admitRequest(mech('line:31623', 'laplace') as JobRequest)).toThrow(/entry by entry/);
    // an expected loss is a second pass over the rows
    expect(() => admitRequest(mech('line:31622', 'laplace', { loss: 'dist' }) as JobRequest)).toThrow(
      /per mechanism and pass\): 2\.00e\+9/,
    );
    expect(() => admitRequest(mech('line:22360', 'laplace', { loss: 'dist' }) as JobRequest)).not.toThrow();
    expect(() => admitRequest(mech(`line:${2 ** 26}`, 'tight') as JobRequest)).toThrow(/solves Phi z = 1/);
    expect(() => admitRequest(mech(`line:${2 ** 26 + 1}`, 'tight') as JobRequest)).toThrow(/too many points/);
    expect(() => admitRequest({ type: 'capacity', domain: 'grid:5x5', epsilon: 1 })).not.toThrow();
    // the sum's answer graph: Levinson, 3 n^2 per eps (751 points: 1000 x 1.69e6 = 1.69e9, under 4e9)
    expect(() => admitRequest({ type: 'threshold', domain: 'sum:150,5' })).not.toThrow();
    // over the LP's limits with a time limit: the best cheap candidate is returned (jobs/best-candidate.ts)
    expect(() =>
      admitRequest(mech('grid:100x100', 'optimal', { loss: 'dist', timeLimitSeconds: 300 }) as never),
    ).not.toThrow();
    expect(() => admitRequest(mech('clique:3000', 'optimal', { timeLimitSeconds: 60 }) as never)).not.toThrow();
    // 1501 points: priced by the grid's length (1000 eps values: 6.76e9; 200: 1.35e9)
    expect(() => admitRequest({ type: 'threshold', domain: 'sum:300,5' })).toThrow(
      /Levinson's O\(n\^2\) Toeplitz recursion per eps: 6\.76e\+9/,
    );
    expect(() => admitRequest({ type: 'threshold', domain: 'sum:300,5', to: 2 })).not.toThrow();
  });
});

describe('admission: entered once per job, each check run once', () => {
  /** An inline metric of n points (|i - j|): its size is known only once built. */
  const inline = (n: number) => ({
    kind: 'custom' as const,
    labels: Array.from({ length: n }, (_, i) => `p${i}`),
    distances: Array.from({ length: n * n }, (_, k) => Math.abs(Math.floor(k / n) - (k % n))),
  });
  const admitted = (req: unknown) => {
    const ran: string[] = [];
    return { ran, admission: admitJob(req as JobRequest, (name) => ran.push(name)) };
  };

  it('prices what the request shows before the build, the rest once after it; building again runs nothing', () => {
    const domain = inline(6);
    const req = { type: 'check', domain, epsilon: 1, mechanism: spec('line:6', 'rr') };
    const { ran, admission } = admitted(req);
    expect(ran).toEqual(['mechanism']);
    admission.built(domain, resolveDomain(domain));
    expect(ran).toEqual(['mechanism', 'secrets', 'same domain', 'privacy check']);
    // the construction builds its own domain (the request sized it), and a handler may build one twice
    admission.built('line:6', resolveDomain('line:6'));
    admission.built(domain, resolveDomain(domain));
    expect(ran).toEqual(['mechanism', 'secrets', 'same domain', 'privacy check']);
  });

  it('one inline domain named twice is sized by its first build, for every check that reads it', () => {
    const domain = inline(4);
    const req = { type: 'measure', domain, mechanism: { ...spec('x', 'rr'), domain }, loss: 'dist' };
    const { ran, admission } = admitted(req);
    expect(ran).toEqual([]);
    admission.built(domain, resolveDomain(domain));
    admission.built(domain, resolveDomain(domain));
    expect(ran).toEqual(['secrets', 'mechanism']);
    // a request whose domains it sizes: every check before the build, nothing after
    const shown = admitted({ type: 'apply', domain: 'line:5', mechanism: spec('line:5', 'tg'), input: 'x', out: 'y' });
    expect(shown.ran).toEqual(['secrets', 'mechanism', 'same domain']);
    shown.admission.built('line:5', resolveDomain('line:5'));
    expect(shown.ran).toHaveLength(3);
  });

  it("a refusal that needs the built domain comes from the one step after the build, on the runner's route too", async () => {
    const domain = inline(3);
    const req = { type: 'check', domain, epsilon: 1, channel: eye6 };
    const { ran, admission } = admitted(req);
    expect(ran).toEqual([]);
    expect(() => admission.built(domain, resolveDomain(domain))).toThrow(
      'the channel has 6 secret rows but the domain custom metric on 3 points has 3 points',
    );
    expect(ran).toEqual(['secrets']);
    const r = await refusal(req);
    expect(r).toMatchObject({
      code: 'invalid-input',
      message: 'the channel has 6 secret rows but the domain custom metric on 3 points has 3 points',
    });
  });
});

describe('admission: valid requests at the edge still succeed', () => {
  it('runs jobs just inside the limits, with schema-valid replies', async () => {
    const rr = await ok(mech('line:30000', 'rr')); // 9e8 streamed entries, under 1e9
    expect(rr.rows).toBe(30000);
    expect(rr.utility as number).toBeGreaterThan(0);
    const tight = await ok(mech('avg:10,10', 'tight')); // dense solve, 101^3
    expect(tight.rows).toBe(101);
    const cap = await ok({ type: 'capacity', domain: 'grid:3x3', epsilon: 1 });
    expect(cap.multiplicative as number).toBeGreaterThan(1);
    const opt = await ok(mech('clique:60', 'optimal'));
    expect(opt.rows).toBe(60);
    const chk = await ok({ type: 'check', mechanism: spec('line:2000', 'rr'), domain: 'line:2000', epsilon: 1 });
    expect(chk.private).toBe(true);
    const metric = ',' + ['a', 'b', 'c'].join(',') + '\na,0,1,2\nb,1,0,1\nc,2,1,0\n';
    writeFileSync(join(dir, 'ok.csv'), metric);
    const custom = await ok(mech(`csv:${join(dir, 'ok.csv')}`, 'exponential'));
    expect(custom.rows).toBe(3);
    const priced = await ok(
      mech('line:4', 'optimal', {
        loss: {
          kind: 'matrix',
          rows: 4,
          cols: 4,
          data: [0, 1e140, 2e140, 3e140, 1e140, 0, 1e140, 2e140, 2e140, 1e140, 0, 1e140, 3e140, 2e140, 1e140, 0],
        },
      }),
    );
    const plain = await ok(
      mech('line:4', 'optimal', {
        loss: { kind: 'matrix', rows: 4, cols: 4, data: [0, 1, 2, 3, 1, 0, 1, 2, 2, 1, 0, 1, 3, 2, 1, 0] },
      }),
    );
    // the LP sees the loss rescaled: the same mechanism at any scale
    expect(priced.utility as number).toBeCloseTo(plain.utility as number, 9);
  }, 60_000);

  it('tiny metric distances give an honest, schema-valid guarantee (null with the reason, never Infinity)', async () => {
    const tiny = 1e-310;
    const r = await ok(
      mech(
        { kind: 'custom', labels: ['a', 'b', 'c'], distances: [0, tiny, tiny, tiny, 0, tiny, tiny, tiny, 0] } as never,
        'rr',
      ),
    );
    expect(r.guaranteedEpsilon).toBeNull();
    expect(r.guarantee).toMatch(/overflows a 64-bit float/);
    const fine = await ok(
      mech(
        { kind: 'custom', labels: ['a', 'b', 'c'], distances: [0, 0.5, 0.5, 0.5, 0, 0.5, 0.5, 0.5, 0] } as never,
        'rr',
      ),
    );
    expect(fine.guaranteedEpsilon).toBe(2);
  });

  it('an expected loss that is not a finite double is reported as null with a note, never Infinity', async () => {
    const huge = { kind: 'custom', labels: ['a', 'b'], distances: [0, 1.5e300, 1.5e300, 0] };
    const m = await ok(mech(huge as never, 'rr', { loss: 'dist2', epsilon: 1e-6 }));
    expect(m.expectedLoss).toBeNull();
    expect(m.notes).toEqual([{ kind: 'loss-not-finite' }]);
    const ch = { rows: 2, cols: 2, data: [0.9, 0.1, 0.1, 0.9], rowLabels: ['a', 'b'], colLabels: ['a', 'b'] };
    const r = await ok({ type: 'measure', channel: ch, domain: huge, loss: 'dist2' });
    expect(r.expectedLoss).toBeNull();
    const fine = await ok({
      type: 'measure',
      channel: ch,
      domain: { kind: 'custom', labels: ['a', 'b'], distances: [0, 2, 2, 0] },
      loss: 'dist2',
    });
    expect(fine.expectedLoss).toBeCloseTo(0.4, 12); // remap keeps the report: 0.1 x 4
  });

  it('the uniform prior passes its own sum check at the largest admitted size (and beyond)', () => {
    for (const n of [ADMISSION_LIMITS.maxPoints, 1e8]) {
      const p = uniformPrior(n);
      expect(validatePrior(p, n).length).toBe(n);
    }
  }, 60_000);
});

describe('row progress of streamed channels', () => {
  it('reports a fraction of the pass, in order, naming the step', () => {
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const src = new FunctionRowSource(
      640,
      2,
      (_i, out) => {
        busy(2);
        out[0] = 1;
        out[1] = 0;
      },
      (i) => String(i),
    );
    const seen: [number | null, string][] = [];
    const ch = withRowProgress(
      src,
      (f, m) => seen.push([f, m]),
      () => 'measuring',
    );
    const out = new Float64Array(2);
    for (let i = 0; i < ch.rows; i++) ch.row(i, out);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    let prev = 0;
    for (const [f, m] of seen) {
      expect(f).not.toBeNull();
      expect(f!).toBeGreaterThan(prev);
      expect(f!).toBeLessThanOrEqual(1);
      expect(m).toMatch(/^measuring: row \d+ of 640$/);
      prev = f!;
    }
  });
});
