/**
 * The remap and apply in jobs: the `remap` modifier of a constructed mechanism and the
 * `apply` job (release one output per secret of a CSV file, streaming).
 * No maths here: the remap is src-worker/remap/, the sampler and the secrets
 * reader src-worker/data/apply.ts.
 */
import { createReadStream } from 'node:fs';
import { rename, stat } from 'node:fs/promises';
import { MechError, invalid, messageOf } from '../../src-shared/errors';
import type { Mechanism, RowSource } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import type { OptimalLpResult } from '../lp/optimal/optimal-mechanism';
import { remapMechanism } from '../remap/bayes-remap';
import { type SecretsDomain, releaseCsv, readCsvStream } from '../data/apply';
import { openPartialFile } from '../base/partial-file';
import { cellBinning, localProjection } from '../data/points';
import type { PointsBinning, RemapResult } from '../../src-shared/protocol/index';
import type { LossSpecInput } from './engine';
import type { JobContext } from './context';

/** The remapped channel C . R and its record (protocol RemapResult). */
export interface RemapOutcome {
  channel: RowSource;
  record: RemapResult;
}

const NO_LP =
  'no LP bound: this job solved no LP (the optimal mechanism, --kind optimal with the same domain, eps, prior and loss, gives a certified lower bound; it is not run implicitly)';

/**
 * Follow a constructed mechanism by its Bayesian remap for the prior and the
 * loss (SPEC §3). The LP bound is reported only when this job
 * solved the optimal LP (kind optimal): it is never run implicitly.
 */
export function remapConstructed(
  mech: Mechanism,
  domain: Domain,
  prior: Float64Array,
  loss: LossSpecInput,
  lp: OptimalLpResult | undefined,
  ctx: JobContext,
): RemapOutcome {
  ctx.progress(0, `remapping the outputs of ${mech.kind} for the prior and loss`);
  const r = remapMechanism(mech, domain, prior, loss, {
    signal: ctx.signal,
    onProgress: (done, total) => ctx.progress(done / total, `remapping outputs (${done} of ${total})`),
  });
  const used = new Uint8Array(r.channel.cols);
  let guessesUsed = 0;
  for (let y = 0; y < r.remap.length; y++) {
    const w = r.remap[y]!;
    if (!used[w]) {
      used[w] = 1;
      guessesUsed++;
    }
  }
  const fin = (x: number | null): number | null => (x !== null && Number.isFinite(x) ? x : null);
  const original = fin(r.originalLoss);
  const remapped = r.remappedLoss;
  if (!Number.isFinite(remapped))
    throw new MechError(
      'not-applicable',
      'the remapped expected loss is not a finite number (infinite distances, or loss values whose sums overflow a 64-bit float)',
    );
  let lpLowerBound: number | null = null;
  let lpExactLowerBound: number | null = null;
  let lpNote = NO_LP;
  if (lp) {
    lpLowerBound = fin(lp.lowerBound);
    lpExactLowerBound = fin(lp.exactLowerBound);
    lpNote =
      lpExactLowerBound !== null
        ? `certified lower bounds from this job's LP: ${lpLowerBound} on the ${lp.model} model's optimum, ${lpExactLowerBound} on the exact optimum`
        : `certified lower bound from this job's LP: ${lpLowerBound} on the ${lp.model} model's optimum${lp.model === 'exact' || lp.model === 'edges' ? ' (the exact optimum)' : ' (not a bound on the exact optimum: the spanner model is stricter)'}`;
  }
  return {
    channel: r.channel,
    record: {
      originalLoss: original,
      originalDefinition: r.originalDefinition,
      remappedLoss: remapped,
      improvement: original === null ? null : original - remapped,
      valueSlack: r.valueSlack,
      method: r.method,
      guessesUsed,
      lpLowerBound,
      lpExactLowerBound,
      lpNote,
      timeMs: r.stats.timeMs,
    },
  };
}

/** The points binning of a request as the secrets reader takes it. */
export function pointsMapping(p: PointsBinning): {
  binning: ReturnType<typeof cellBinning>;
  projection: ReturnType<typeof localProjection> | null;
} {
  return {
    binning: cellBinning(p.xMin, p.yMax, p.rows, p.cols, p.cellKm),
    projection: p.projection
      ? localProjection(p.projection.lat0, p.projection.lon0, p.projection.latMin, p.projection.latMax)
      : null,
  };
}

/**
 * Bytes a CSV row took in its file, at most: its fields (a field holding a separator, quote or line break was
 * quoted: 2 more), the separators and one line break. Quotes doubled inside a field, CRLF, blank and comment
 * lines are not counted, so progress from it never runs ahead of the release.
 */
export function rowBytesAtMost(fields: readonly string[]): number {
  let b = fields.length; // separators and the line break
  for (const f of fields) b += Buffer.byteLength(f) + (/[",\r\n]/.test(f) ? 2 : 0);
  return b;
}

/**
 * Stream the secrets CSV `input` through the channel into `out` (written as
 * out.partial, renamed when complete; removed on any error, so a failed
 * release leaves no partial file). One output line per input row, in order.
 */
export async function releaseFile(
  channel: RowSource,
  domain: SecretsDomain,
  input: string,
  out: string,
  opts: { seed?: number; points?: PointsBinning; header?: 'yes' | 'no'; ctx: JobContext },
): Promise<{
  rows: number;
  header: boolean;
  forRelease: boolean;
  mode: 'labels' | 'points';
  rowsBuilt: number;
  timeMs: number;
}> {
  let size: number;
  try {
    const s = await stat(input);
    if (!s.isFile()) invalid(`secrets CSV ${input} is not a regular file`);
    size = s.size;
  } catch (e) {
    if (e instanceof MechError) throw e;
    invalid(`cannot read secrets CSV ${input}: ${messageOf(e)}`);
  }
  const file = await openPartialFile(out);
  const rs = createReadStream(input, { highWaterMark: 1 << 20 });
  // Progress is the bytes of the rows released so far, not of the file read: the reader runs up to a
  // megabyte and the parser's buffers ahead, which on short label rows was half the file (100% at 46%), and
  // the release samples rows in blocks. `bytesAt` holds the bytes up to the header and n rows, for the n
  // (multiples of 4096) at which the release reports.
  let consumed = 0;
  let pulled = -1; // the header is not a released row
  const bytesAt = new Map<number, number>();
  let mode: 'labels' | 'points' = 'labels';
  try {
    const rows = readCsvStream(rs, `secrets CSV ${input}`);
    const r = await releaseCsv(
      (async function* () {
        for await (const row of rows) {
          consumed += rowBytesAtMost(row.fields);
          if (++pulled % 4096 === 0) bytesAt.set(pulled, consumed);
          yield row;
        }
      })(),
      channel,
      domain,
      (text) => file.write(text),
      `secrets CSV ${input}`,
      {
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        ...(opts.points ? { points: pointsMapping(opts.points) } : {}),
        ...(opts.header ? { header: opts.header } : {}),
        signal: opts.ctx.signal,
        onProgress: (n) => {
          // releaseCsv reports every 4096 rows; at any other count, the mean bytes per row pulled so far
          const bytes = bytesAt.get(n) ?? (pulled > 0 ? (consumed * n) / pulled : 0);
          bytesAt.delete(n);
          opts.ctx.progress(size > 0 ? Math.min(1, bytes / size) : null, `released ${n} rows`);
        },
        onMode: (m) => (mode = m),
      },
    );
    await file.close();
    await rename(file.tmp, out);
    return {
      rows: r.rows,
      header: r.header,
      forRelease: r.forRelease,
      mode,
      rowsBuilt: r.stats.rowsBuilt,
      timeMs: r.timeMs,
    };
  } catch (e) {
    rs.destroy();
    await file.discard();
    throw e;
  }
}
