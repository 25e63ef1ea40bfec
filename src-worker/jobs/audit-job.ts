/**
 * The `audit` job: read the samples (a file by path, streamed, or text), run
 * the audit (src-worker/audit/audit.ts) and put the outcome in protocol
 * form, labels beside indices.
 */
import { createReadStream } from 'node:fs';
import type { AuditRequest, AuditResult, AuditTestRecord } from '../../src-shared/protocol/index';
import { auditSamples, type AuditTest } from '../audit/audit';
import { readSamples } from '../audit/samples';
import { readCsvStream } from '../data/apply';
import { readCsvRows } from '../metric/read-csv';
import type { Domain } from '../metric/domain';
import { checkCancelled, type JobContext } from './context';
import { domainOf } from './handlers';
import type { JobAdmission } from './admission';
import { pointsMapping } from './remap-jobs';

function record(t: AuditTest, domain: Domain): AuditTestRecord {
  const event = [...t.event];
  return {
    secrets: [domain.label(t.a), domain.label(t.b)],
    indices: [t.a, t.b],
    distance: t.distance,
    event: event.map((y) => domain.label(y)),
    eventIndices: event,
    countA: t.ka,
    samplesA: t.na,
    countB: t.kb,
    samplesB: t.nb,
    lowerA: t.lowerA,
    upperB: t.upperB,
    bound: Number.isFinite(t.bound) ? t.bound : null,
  };
}

export async function auditJob(req: AuditRequest, ctx: JobContext, admission: JobAdmission): Promise<AuditResult> {
  const t0 = performance.now();
  const domain = domainOf(admission, req.domain, ctx);
  const source =
    req.input !== undefined
      ? `samples CSV ${req.input}`
      : req.name !== undefined
        ? `samples CSV ${req.name}`
        : 'samples CSV';
  ctx.progress(0, 'reading the samples');
  const rows =
    req.input !== undefined
      ? readCsvStream(createReadStream(req.input, { highWaterMark: 1 << 20 }), source)
      : readCsvRows(req.text!, source);
  const samples = await readSamples(rows, domain, source, {
    ...(req.points ? { points: pointsMapping(req.points) } : {}),
    signal: ctx.signal,
  });
  checkCancelled(ctx.signal);
  ctx.progress(0.5, `auditing ${samples.secrets.length} samples`);
  const r = auditSamples(
    {
      secrets: samples.secrets,
      outputs: samples.outputs,
      n: domain.n,
      m: domain.n,
      distance: (a, b) => domain.distance(a, b),
    },
    {
      epsilon: req.epsilon,
      ...(req.confidence !== undefined ? { confidence: req.confidence } : {}),
      ...(req.detect ? { detect: req.detect } : {}),
    },
  );
  ctx.progress(1, 'done');
  const out: AuditResult = {
    type: 'audit',
    verdict: r.verdict,
    epsilon: r.epsilon,
    confidence: r.confidence,
    epsilonLowerBound: r.epsilonLowerBound,
    witness: r.witness ? record(r.witness, domain) : null,
    tested: r.tested.map((t) => record(t, domain)),
    samples: r.samples,
    pairsTested: r.tested.length,
    selectionSamples: r.selectionSamples,
    estimationSamples: r.estimationSamples,
    secretsSeen: r.secretsSeen,
    domain: domain.spec,
    domainPoints: domain.n,
    mode: samples.mode,
    detection: r.detection,
    timeMs: performance.now() - t0,
  };
  if (r.untested !== null) out.note = r.untested;
  return out;
}
