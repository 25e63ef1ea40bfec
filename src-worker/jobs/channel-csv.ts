/**
 * Stream a channel to CSV (SPEC §8 format: a header row of output labels
 * after an empty first cell, then label, probabilities per secret), one row
 * at a time, so channels that never fit in memory as text still export.
 * Written to FILE.partial, fsynced, then renamed: a cancelled or failed
 * export never leaves a truncated FILE.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { MechError } from '../errors';
import type { RowSource } from '../mechanism/channel';
import { checkCancelled } from './context';
import { toDense } from '../mechanism/channel';
import type { MatrixPayload } from '../protocol/common';

export function csvCell(s: string): string {
  return /[",\n\r]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Largest channel (entries) exported to CSV: about 40 GB of text. */
export const MAX_CSV_ENTRIES = 2e9;

export function assertCsvFits(rows: number, cols: number): void {
  const entries = rows * cols;
  if (entries > MAX_CSV_ENTRIES) {
    throw new MechError(
      'too-large',
      `the ${rows} x ${cols} channel would be about ${((entries * 20) / 1e12).toFixed(1)} TB of CSV (limit ${MAX_CSV_ENTRIES.toExponential(0)} entries); its summary is reported without --out`,
    );
  }
}

export function writeChannelCsv(ch: RowSource, path: string, signal?: AbortSignal, progress?: (f: number, m: string) => void): void {
  assertCsvFits(ch.rows, ch.cols);
  const tmp = `${path}.partial`;
  let fd: number;
  try {
    fd = openSync(tmp, 'w');
  } catch (e) {
    throw new MechError('invalid-input', `cannot write ${path}: ${(e as Error).message}`);
  }
  try {
    let buf = '';
    const flush = (): void => {
      writeSync(fd, buf);
      buf = '';
    };
    const header: string[] = [''];
    for (let j = 0; j < ch.cols; j++) header.push(csvCell(ch.colLabel(j)));
    buf += header.join(',') + '\n';
    const row = new Float64Array(ch.cols);
    for (let i = 0; i < ch.rows; i++) {
      ch.row(i, row);
      let line = csvCell(ch.rowLabel(i));
      for (let j = 0; j < ch.cols; j++) line += ',' + String(row[j]);
      buf += line + '\n';
      if (buf.length > 1 << 20) {
        flush();
        checkCancelled(signal);
        progress?.(i / ch.rows, `writing ${path}`);
      }
    }
    flush();
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      /* already closed */
    }
    try {
      unlinkSync(tmp);
    } catch {
      /* nothing to remove */
    }
    throw e;
  }
}

/** Inline matrix payload (the caller checked the size). */
export function matrixPayload(ch: RowSource): MatrixPayload {
  const d = toDense(ch);
  return { rows: d.rows, cols: d.cols, data: Array.from(d.matrix.data), rowLabels: d.rowLabels.slice(), colLabels: d.colLabels.slice() };
}
