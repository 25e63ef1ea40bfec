/**
 * Project file versions: a version 1 file opens as the version 2 file its migration makes (its kept mechanism
 * results' flat `info` read onto typed `facts`), a version 2 file is read as it is (a flat `info` there is no
 * shape of any version), and a file of a later version is one message naming that version. Notes kept as sentences
 * (before they were typed values) are read as they are and shown as recorded, in the same version.
 */
import { describe, expect, it } from 'vitest';
import {
  explorerResultSchema,
  migrateProject,
  PROJECT_VERSION,
  type JobRequest,
} from '../../../../src-shared/protocol/index';
import { parseProject } from '../../../../src-main/project/project-file';
import { auditVerdictText } from '../../../../src-shared/charts/audit-words';
import { candidateWords } from '../../../../src-shared/charts/lp-words';
import { capacityNoteWords } from '../../../../src-shared/charts/note-words';
import { silentContext } from '../../../../src-worker/jobs/context';
import { mechError } from '../../support/mech-error';
import { mechanismOnLine } from '../../support/construction-facts';
import { runJob } from '../../support/run-job';

/** The one message reading `file` (JSON of `project`) fails with: an invalid-input MechError. */
const refusal = (project: unknown, file: string): string =>
  mechError(() => parseProject(JSON.stringify(project), file), 'invalid-input').message;

const ALPHA = Math.exp(-0.5);
const HASH = '0123456789abcdef';

/** A mechanism result without its construction facts (each version adds them in its own shape). */
const result = (kind: string): Record<string, unknown> => mechanismOnLine(kind, 6, 0.5, 0.3);

const items = {
  name: 'study',
  domains: [{ id: 'line', domain: 'line:6' }],
  mechanisms: [
    { id: 'exp', domain: 'line', kind: 'exponential', epsilon: 0.5 },
    { id: 'tg', domain: 'line', kind: 'tg', epsilon: 0.5 },
    { id: 'rr', domain: 'line', kind: 'rr', epsilon: 0.5 },
  ],
};
const RR_FACTS = { kind: 'randomised-response', diagonal: 0.5, offDiagonal: 0.1, minDistance: 1 };

/** A version 1 file as earlier versions wrote it: two results with the flat info, one already with typed facts. */
const V1 = {
  version: 1,
  ...items,
  results: {
    exp: {
      hash: HASH,
      computedAt: '2026-01-02T03:04:05.000Z',
      result: { ...result('exponential'), info: { kernelRate: 0.25, effectiveEpsilonNote: 'not measured' } },
    },
    tg: { hash: HASH, result: { ...result('tg'), info: { alpha: ALPHA, k: 2, construction: 'closed form, SPEC §2' } } },
    rr: { hash: HASH, result: { ...result('rr'), facts: RR_FACTS } },
  },
};

/** The same file in version 2, written by hand. */
const V2 = {
  version: 2,
  ...items,
  results: {
    exp: {
      hash: HASH,
      computedAt: '2026-01-02T03:04:05.000Z',
      result: {
        ...result('exponential'),
        facts: { kind: 'exponential', kernelRate: 0.25 },
        factsAsRecorded: [{ name: 'effectiveEpsilonNote', value: 'not measured' }],
      },
    },
    tg: { hash: HASH, result: { ...result('tg'), facts: { kind: 'truncated-geometric', alpha: ALPHA, k: 2 } } },
    rr: { hash: HASH, result: { ...result('rr'), facts: RR_FACTS } },
  },
};

describe('project file versions', () => {
  it('the current version is 2', () => {
    expect(PROJECT_VERSION).toBe(2);
  });

  it('a version 1 file migrates to the version 2 file, and opens equal to it', () => {
    expect(migrateProject(V1)).toEqual({ ok: true, project: V2 });
    const opened = parseProject(JSON.stringify(V1), 'old.json');
    expect(opened).toEqual(parseProject(JSON.stringify(V2), 'new.json'));
    expect(opened.version).toBe(2);
    expect(opened.results!.tg!.result).toMatchObject({ facts: { kind: 'truncated-geometric', alpha: ALPHA, k: 2 } });
    expect('info' in opened.results!.exp!.result).toBe(false);
    // a version 1 file without kept results only changes its version
    expect(migrateProject({ version: 1, ...items })).toEqual({ ok: true, project: { version: 2, ...items } });
  });

  it('a version 2 file is read as it is: the flat info is no shape of it', () => {
    expect(migrateProject(V2)).toEqual({ ok: true, project: V2 });
    const flat = {
      ...V2,
      results: { exp: { hash: HASH, result: { ...result('exponential'), info: { kernelRate: 0.25 } } } },
    };
    expect(refusal(flat, 'new.json')).toMatch(/^new\.json field 'results\.exp\.result\.facts': /);
  });

  it('a version 1 info that is no record of names and values is one message naming it', () => {
    const bad = { ...V1, results: { exp: { hash: HASH, result: { ...result('exponential'), info: { alpha: [1] } } } } };
    expect(refusal(bad, 'bad.json')).toBe(
      "bad.json field 'results.exp.result.info': the facts of an earlier version must be names with numbers, text or yes/no",
    );
  });

  it('a file of a later version, or of no version this program knows, is one message naming its version', () => {
    expect(refusal({ ...V2, version: 3 }, 'next.json')).toBe(
      'next.json: project version 3 is newer than this program reads (version 2): open it with a newer Mechanism Studio',
    );
    expect(refusal({ ...V2, version: 'two' }, 'odd.json')).toBe(
      'odd.json: project version two is not one this program reads (version 2, or 1, which is upgraded when read)',
    );
    expect(refusal({ ...items }, 'none.json')).toBe("none.json field 'version': project version must be 2");
  });

  it("a version 2 file's kept notes written as sentences open as they are and are shown as recorded", async () => {
    const NOT_TESTED = 'the log has samples of 1 secret; an audit needs two';
    const audit = await runJob<'audit'>({
      type: 'audit',
      domain: 'line:5',
      epsilon: 1,
      text: `secret,released\n${Array.from({ length: 40 }, (_, i) => `2,${i % 5}`).join('\n')}\n`,
    });
    const req: JobRequest = { type: 'mechanism', kind: 'optimal', domain: 'grid:4x4', epsilon: 0.5, lpThreads: 1 };
    const stop = new Int32Array(new SharedArrayBuffer(4));
    stop[0] = 1; // stopped before its first round: the candidates are all this needs
    const optimal = await runJob<'mechanism'>(req, { ...silentContext(), stopFlag: stop });
    const TIGHT = 'does not exist at this ε: its output weight at (1,2) would have to be negative';
    const candidates = optimal.lp!.candidates!.map((c) => (c.note ? { ...c, note: TIGHT } : c));
    const file = {
      ...V2,
      mechanisms: [...V2.mechanisms, { id: 'opt', domain: 'line', kind: 'optimal', epsilon: 0.5 }],
      audits: [
        {
          id: 'a',
          domain: 'line:5',
          epsilon: 1,
          epsilonText: '1',
          confidence: 0.99,
          result: { ...audit, note: NOT_TESTED },
        },
      ],
      results: { ...V2.results, opt: { hash: HASH, result: { ...optimal, lp: { ...optimal.lp!, candidates } } } },
    };
    expect(migrateProject(file)).toEqual({ ok: true, project: file });
    const opened = parseProject(JSON.stringify(file), 'kept.json');
    const kept = opened.audits![0]!.result!;
    expect(kept.note).toBe(NOT_TESTED);
    expect(auditVerdictText(kept)).toBe(
      `not tested: ${NOT_TESTED} (no verdict on the claimed ε = 1: these samples can neither refute nor support it)`,
    );
    const lp = (opened.results!.opt!.result as typeof optimal).lp!;
    expect(lp.candidates!.filter((c) => c.expectedLoss === null).map((c) => candidateWords(c, String))).toEqual([
      `tight+remap: n/a (${TIGHT})`,
    ]);
    // an explorer result (not kept in files, but read by the same schema) with its row's sentence
    const explorer = explorerResultSchema.parse({
      type: 'explorer',
      domain: 'line:3',
      epsilon: 400,
      simplex: null,
      capacityRows: [
        {
          domain: 'line:3',
          size: 3,
          vertices: null,
          kernels: null,
          multiplicative: null,
          additive: null,
          source: null,
          note: 'n = 12 > 10',
        },
      ],
    });
    expect(capacityNoteWords(explorer.capacityRows![0]!.note!)).toBe('n = 12 > 10');
  }, 60_000);
});
