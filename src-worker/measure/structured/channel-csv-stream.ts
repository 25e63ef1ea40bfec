import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { MechError } from '../../errors';
import type { RowSource } from '../../mechanism/channel';

/**
 * Stream a channel to CSV through a Node write stream (SPEC §8 format: a
 * header row of output labels after an empty first cell, then one row per
 * secret: label, probabilities). Rows are generated on demand and written
 * in chunks of `chunkRows`, waiting for 'drain' when the stream's buffer is
 * full, so memory stays O(chunk) whatever the channel's size. Numbers are
 * written in JavaScript's shortest round-trip form: parsing gives back the
 * same doubles. Labels with a comma, quote, line break or outer spaces are
 * quoted (RFC 4180), e.g. grid labels "(0,1)".
 */
export interface CsvStreamOptions {
  chunkRows?: number;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export function csvField(s: string): string {
  return /[",\n\r]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

export async function streamChannelCsv(
  source: RowSource,
  path: string,
  opts: CsvStreamOptions = {},
): Promise<{ rows: number; cols: number; bytes: number }> {
  const chunkRows = opts.chunkRows ?? 64;
  if (!Number.isInteger(chunkRows) || chunkRows < 1) throw new MechError('invalid-input', `chunk size must be an integer >= 1, got ${chunkRows}`);
  const out = createWriteStream(path, { encoding: 'utf8' });
  const failed = new Promise<never>((_, reject) => {
    out.once('error', (e) => reject(new MechError('invalid-input', `cannot write ${path}: ${e.message}`)));
  });
  failed.catch(() => undefined);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await Promise.race([once(out, 'drain'), failed]);
  };
  try {
    const m = source.cols;
    const header: string[] = [''];
    for (let j = 0; j < m; j++) header.push(csvField(source.colLabel(j)));
    await write(header.join(',') + '\n');
    const row = new Float64Array(m);
    const parts = new Array<string>(m + 1);
    let chunk = '';
    for (let i = 0; i < source.rows; i++) {
      source.row(i, row);
      parts[0] = csvField(source.rowLabel(i));
      for (let j = 0; j < m; j++) parts[j + 1] = String(row[j]);
      chunk += parts.join(',') + '\n';
      if ((i + 1) % chunkRows === 0 || i === source.rows - 1) {
        await write(chunk);
        chunk = '';
        opts.onProgress?.((i + 1) / source.rows);
        if (opts.signal?.aborted) throw new MechError('cancelled', `export to ${path} was cancelled after ${i + 1} rows`);
      }
    }
    out.end();
    await Promise.race([once(out, 'finish'), failed]);
    return { rows: source.rows, cols: m, bytes: out.bytesWritten };
  } catch (e) {
    out.destroy();
    throw e;
  }
}
