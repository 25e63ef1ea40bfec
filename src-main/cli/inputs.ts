/**
 * Text forms of SPEC §8 inputs (priors, losses, channel CSVs, domain files)
 * turned into protocol values. Files are read here, on the Node side, so a
 * request that reaches a worker is self-contained. Every problem is one
 * MechError 'invalid-input' naming the file and line.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { MechError, invalid } from '../../src-worker/errors';
import type { ChannelPayload, LossInput, PriorInput } from '../../src-worker/protocol/common';
import { MAX_REQUEST_CHANNEL_ENTRIES } from '../../src-worker/protocol/common';
import { type CsvRow, readCsvRows } from '../../src-worker/metric/read-csv';

/** Largest CSV file read into memory (bytes). */
const MAX_CSV_BYTES = 512 * 1024 * 1024;

/** A CSV record and the 1-based line where it ends. */
export type CsvRecord = CsvRow;

export function readTextFile(path: string, what: string): string {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) invalid(`${what} '${path}' is not a file`);
    size = st.size;
  } catch (e) {
    if (e instanceof MechError) throw e;
    invalid(`cannot read ${what} '${path}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  if (size > MAX_CSV_BYTES) invalid(`${what} '${path}' is ${(size / 2 ** 20).toFixed(0)} MiB, over the ${MAX_CSV_BYTES / 2 ** 20} MiB limit`);
  return readFileSync(path, 'utf8');
}

/** Parse CSV text (comment lines '#', empty lines skipped, cells trimmed) with line numbers: the engine's reader. */
export const parseCsv: (text: string, source: string) => CsvRecord[] = readCsvRows;

/** A CSV cell as a finite number, or an error naming file, line and column. */
export function csvNumber(cell: string, source: string, line: number, col: number): number {
  const v = cell === '' ? NaN : Number(cell);
  if (!Number.isFinite(v)) invalid(`${source} line ${line}, column ${col + 1}: '${cell}' is not a number`);
  return v;
}

/**
 * Channel CSV (SPEC §8): a header row of output labels after an empty first
 * cell, then one row per secret: label, probabilities.
 */
export function parseChannelCsv(text: string, source: string): ChannelPayload {
  const recs = parseCsv(text, source);
  if (recs.length < 2) invalid(`${source}: a channel CSV needs a header row and at least one secret row`);
  const header = recs[0]!;
  if (header.fields[0] !== '') {
    invalid(`${source} line ${header.line}: the header's first cell must be empty (then one label per output), found '${header.fields[0]}'`);
  }
  const colLabels = header.fields.slice(1);
  const cols = colLabels.length;
  if (cols === 0) invalid(`${source} line ${header.line}: the header lists no output labels`);
  const rows = recs.length - 1;
  if (rows * cols > MAX_REQUEST_CHANNEL_ENTRIES) invalid(`${source}: ${rows} x ${cols} channel is over the ${MAX_REQUEST_CHANNEL_ENTRIES}-entry limit for CSV input`);
  const data = new Array<number>(rows * cols);
  const rowLabels: string[] = [];
  for (let i = 0; i < rows; i++) {
    const r = recs[i + 1]!;
    if (r.fields.length !== cols + 1) {
      invalid(`${source} line ${r.line}: expected ${cols + 1} cells (label + ${cols} probabilities), found ${r.fields.length}`);
    }
    rowLabels.push(r.fields[0]!);
    for (let j = 0; j < cols; j++) {
      const v = csvNumber(r.fields[j + 1]!, source, r.line, j + 1);
      if (v < 0) invalid(`${source} line ${r.line}, column ${j + 2}: probability ${v} is negative`);
      data[i * cols + j] = v;
    }
    let s = 0;
    for (let j = 0; j < cols; j++) s += data[i * cols + j]!;
    if (Math.abs(s - 1) > 1e-6) invalid(`${source} line ${r.line}: row '${r.fields[0]}' sums to ${s}, not 1`);
  }
  return { rows, cols, data, rowLabels, colLabels };
}

export function readChannelCsv(path: string): ChannelPayload {
  return parseChannelCsv(readTextFile(path, 'channel CSV'), path);
}

/** A list of numbers from CSV (one per cell, any layout; an optional label column is not allowed). */
function parseNumberList(text: string, source: string): number[] {
  const out: number[] = [];
  for (const r of parseCsv(text, source)) r.fields.forEach((f, j) => out.push(csvNumber(f, source, r.line, j)));
  if (out.length === 0) invalid(`${source}: no numbers found`);
  return out;
}

function parseCommaList(text: string, what: string): number[] {
  const parts = text.split(',').map((s) => s.trim());
  return parts.map((p, i) => {
    const v = p === '' ? NaN : Number(p);
    if (!Number.isFinite(v)) invalid(`${what}: item ${i + 1} ('${p}') is not a number`);
    if (v < 0) invalid(`${what}: item ${i + 1} (${v}) is negative`);
    return v;
  });
}

function absolute(file: string, baseDir: string): string {
  return isAbsolute(file) ? file : resolve(baseDir, file);
}

/** Prior text (SPEC §8): uniform, product:p1,p2,..., csv:FILE, or a comma list. */
export function parsePriorArg(text: string, baseDir = process.cwd()): PriorInput {
  const t = text.trim();
  if (t === '') invalid('prior is empty: use uniform, product:p1,p2,..., csv:FILE or a comma list');
  if (t === 'uniform') return 'uniform';
  if (t.startsWith('product:')) return { kind: 'product', values: parseCommaList(t.slice(8), 'product prior') };
  if (t.startsWith('csv:')) {
    const file = absolute(t.slice(4), baseDir);
    const values = parseNumberList(readTextFile(file, 'prior CSV'), file);
    values.forEach((v, i) => {
      if (v < 0) invalid(`prior CSV ${file}: entry ${i + 1} (${v}) is negative`);
    });
    return { kind: 'vector', values };
  }
  if (t.includes(',') || /^[-+0-9.eE\s]+$/.test(t)) return { kind: 'vector', values: parseCommaList(t, 'prior') };
  invalid(`unknown prior '${text}': use uniform, product:p1,p2,..., csv:FILE or a comma list`);
}

/** Loss text (SPEC §8): bin, nib, dist, dist2, csv:FILE (rows = guesses, optional label column, columns = secrets). */
export function parseLossArg(text: string, baseDir = process.cwd()): LossInput {
  const t = text.trim();
  if (t === 'bin' || t === 'nib' || t === 'dist' || t === 'dist2') return t;
  if (t.startsWith('csv:')) {
    const file = absolute(t.slice(4), baseDir);
    const recs = parseCsv(readTextFile(file, 'loss CSV'), file);
    if (recs.length === 0) invalid(`loss CSV ${file}: no rows`);
    // Optional header row / label column: a first cell that is not a number.
    let body = recs;
    const firstIsNumber = (f: string | undefined): boolean => f !== undefined && f !== '' && Number.isFinite(Number(f));
    if (!recs[0]!.fields.slice(1).every(firstIsNumber) || recs[0]!.fields[0] === '') body = recs.slice(1);
    if (body.length === 0) invalid(`loss CSV ${file}: no rows of numbers`);
    const labelled = !firstIsNumber(body[0]!.fields[0]);
    const cols = body[0]!.fields.length - (labelled ? 1 : 0);
    const data: number[] = [];
    const rowLabels: string[] = [];
    for (const r of body) {
      const cells = labelled ? r.fields.slice(1) : r.fields;
      if (cells.length !== cols) invalid(`loss CSV ${file} line ${r.line}: expected ${cols} numbers, found ${cells.length}`);
      if (labelled) rowLabels.push(r.fields[0]!);
      cells.forEach((c, j) => data.push(csvNumber(c, file, r.line, j + (labelled ? 1 : 0))));
    }
    return labelled ? { kind: 'matrix', rows: body.length, cols, data, rowLabels } : { kind: 'matrix', rows: body.length, cols, data };
  }
  invalid(`unknown loss '${text}': use bin, nib, dist, dist2 or csv:FILE`);
}

/** Domain text: graph:FILE and csv:FILE become absolute paths (workers resolve them); the rest is passed through. */
export function resolveDomainArg(text: string, baseDir = process.cwd()): string {
  const t = text.trim();
  if (t === '') invalid('domain is empty (e.g. line:6, clique:5, grid:20x20:step=1)');
  const m = /^(graph|csv):(.+)$/.exec(t);
  if (m) {
    const file = absolute(m[2]!, baseDir);
    readTextFile(file, `${m[1]} domain file`); // fail early, on this side, with a clear message
    return `${m[1]}:${file}`;
  }
  return t;
}
