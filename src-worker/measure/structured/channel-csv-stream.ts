import { lstat, rename } from 'node:fs/promises';
import { MechError, messageOf } from '../../../src-shared/errors';
import { fileKind } from '../../base/file-kind';
import { openPartialFile } from '../../base/partial-file';
import type { RowSource } from '../../mechanism/channel';
import { checkCancelled } from '../../numeric/cancel';

/**
 * Stream a channel to CSV through a Node write stream (SPEC §8 format: a
 * header row of output labels after an empty first cell, then one row per
 * secret: label, probabilities). This is the one channel-CSV writer (the job
 * handlers call it through jobs/channel-csv.ts). Rows are generated on
 * demand and written in chunks of `chunkRows`, waiting for 'drain' when the
 * stream's buffer is full, so memory stays O(chunk) whatever the channel's
 * size. Numbers are written in JavaScript's shortest round-trip form: parsing
 * gives back the same doubles. Labels with a comma, quote, line break or
 * outer spaces are quoted (RFC 4180), e.g. grid labels "(0,1)".
 *
 * The text goes to PATH.partial, flushed to disk and renamed to PATH only
 * when complete: a cancelled or failed export never leaves a truncated PATH.
 */
interface CsvStreamOptions {
  chunkRows?: number;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/** One CSV field: quoted (RFC 4180) when it holds a comma, quote, line break or outer spaces. */
export function csvField(s: string): string {
  return /[",\n\r]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The header line: an empty first cell, then the output (column) labels. */
function channelCsvHeader(source: RowSource): string {
  const header: string[] = [''];
  for (let j = 0; j < source.cols; j++) header.push(csvField(source.colLabel(j)));
  return header.join(',') + '\n';
}

/** Row i as a CSV line (label, probabilities in shortest round-trip form); `buf` holds at least cols entries. */
export function channelCsvRow(source: RowSource, i: number, buf: Float64Array): string {
  source.row(i, buf);
  let line = csvField(source.rowLabel(i));
  for (let j = 0; j < source.cols; j++) line += ',' + String(buf[j]);
  return line + '\n';
}

/**
 * What a path is when it exists and is not a regular file (lstat: a symbolic link itself is replaced, not its target);
 * null otherwise.
 */
async function nonRegularKind(path: string): Promise<string | null> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return null; // absent (or unreachable: the open reports it)
  }
  if (st.isFile() || st.isSymbolicLink()) return null;
  return fileKind(st);
}

export async function streamChannelCsv(
  source: RowSource,
  path: string,
  opts: CsvStreamOptions = {},
): Promise<{ rows: number; cols: number; bytes: number }> {
  const chunkRows = opts.chunkRows ?? 64;
  if (!Number.isInteger(chunkRows) || chunkRows < 1)
    throw new MechError('invalid-input', `chunk size must be an integer >= 1, got ${chunkRows}`);
  const tmp = `${path}.partial`;
  // Never replace anything but a regular file (a device node, FIFO, socket or directory at PATH is
  // refused, not renamed over), and never open a FIFO planted at PATH.partial: a stale regular
  // .partial is removed, then the temp file is created exclusively ('wx').
  const kind = await nonRegularKind(path);
  if (kind)
    throw new MechError(
      'invalid-input',
      `cannot write ${path}: it is ${kind}, not a regular file; refusing to replace it`,
    );
  const tmpKind = await nonRegularKind(tmp);
  if (tmpKind) throw new MechError('invalid-input', `cannot write ${path}: its temporary file ${tmp} is ${tmpKind}`);
  const out = await openPartialFile(path);
  try {
    const m = source.cols;
    await out.write(channelCsvHeader(source));
    const row = new Float64Array(m);
    let chunk = '';
    for (let i = 0; i < source.rows; i++) {
      chunk += channelCsvRow(source, i, row);
      if ((i + 1) % chunkRows === 0 || i === source.rows - 1) {
        await out.write(chunk);
        chunk = '';
        opts.onProgress?.((i + 1) / source.rows);
        checkCancelled(opts.signal, `export to ${path} was cancelled after ${i + 1} rows`);
      }
    }
    const bytes = await out.close();
    try {
      await rename(out.tmp, path);
    } catch (e) {
      throw new MechError('invalid-input', `cannot write ${path}: ${messageOf(e)}`);
    }
    return { rows: source.rows, cols: m, bytes };
  } catch (e) {
    await out.discard();
    throw e;
  }
}
