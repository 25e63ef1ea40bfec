/** Channel CSV export for job handlers: size guard, the streamed writer, inline matrix payloads. */
import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import { toDense } from '../mechanism/channel';
import type { MatrixPayload } from '../../src-shared/protocol/index';
import { streamChannelCsv } from '../measure/structured/channel-csv-stream';

/** Text per write chunk (about 20 characters per probability). */
const CHUNK_CHARS = 1 << 20;

/** Largest channel (entries) exported to CSV: about 40 GB of text. */
const MAX_CSV_ENTRIES = 2e9;

export function assertCsvFits(rows: number, cols: number): void {
  const entries = rows * cols;
  if (entries > MAX_CSV_ENTRIES) {
    throw new MechError(
      'too-large',
      `the ${rows} x ${cols} channel would be about ${((entries * 20) / 1e12).toFixed(1)} TB of CSV (limit ${MAX_CSV_ENTRIES.toExponential(0)} entries); its summary is reported without --out`,
    );
  }
}

/**
 * Write a channel to FILE as CSV (SPEC §8) through the one streamed writer
 * (measure/structured/channel-csv-stream.ts: chunked with backpressure,
 * FILE.partial renamed when complete), in chunks of about 1 MB of text,
 * reporting progress and stopping with 'cancelled' when the job's signal fires.
 */
export async function writeChannelCsv(
  ch: RowSource,
  path: string,
  signal?: AbortSignal,
  progress?: (f: number, m: string) => void,
): Promise<void> {
  assertCsvFits(ch.rows, ch.cols);
  await streamChannelCsv(ch, path, {
    chunkRows: Math.max(1, Math.ceil(CHUNK_CHARS / (20 * Math.max(1, ch.cols)))),
    ...(signal ? { signal } : {}),
    ...(progress ? { onProgress: (f: number) => progress(f, `writing ${path}`) } : {}),
  });
}

/** Inline matrix payload (the caller checked the size). */
export function matrixPayload(ch: RowSource): MatrixPayload {
  const d = toDense(ch);
  return {
    rows: d.rows,
    cols: d.cols,
    data: Array.from(d.matrix.data),
    rowLabels: d.rowLabels.slice(),
    colLabels: d.colLabels.slice(),
  };
}
