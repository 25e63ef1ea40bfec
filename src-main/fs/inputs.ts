/**
 * Text forms of SPEC §8 inputs (priors, losses, channel CSVs, domain files)
 * turned into protocol values. Files are read here, on the Node side, so a
 * request that reaches a worker is self-contained. Every problem is one
 * MechError 'invalid-input' naming the file and line.
 */
import { totalmem } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { invalid } from '../../src-shared/errors';
import {
  type ChannelPayload,
  type LossInput,
  type PriorInput,
  builtinLossSchema,
  MAX_REQUEST_CHANNEL_ENTRIES,
} from '../../src-shared/protocol/index';
import { sizeOfDomainInput, type KeptChannel } from '../../src-worker/index';
import { checkReadableFileSync, readRegularFileChunks } from './safe-fs';
import { parseDomainSpecText } from '../../src-shared/grammar/domain-spec';
import { parsePriorSpecText } from '../../src-shared/grammar/prior-spec';
import { parsePointsPriorArg } from './points-prior';
import { CsvTokenizer, absolute, csvNumber, parseDecimal, shortLabel, tokenizeFileSync } from './csv-cells';

/** Largest case-study parameter CSV read into memory (bytes). */
const MAX_CSV_BYTES = 128 * 1024 * 1024;
/** Largest prior CSV (bytes; streamed) and its most entries (the engine sizes jobs up to ~6.7e7 points). */
const MAX_PRIOR_CSV_BYTES = 256 * 1024 * 1024;
const MAX_PRIOR_CSV_ENTRIES = 16_000_000;
/** Largest loss CSV (bytes; streamed); at most MAX_REQUEST_CHANNEL_ENTRIES numbers, like a channel. */
const MAX_LOSS_CSV_BYTES = 128 * 1024 * 1024;
/** Largest graph:/csv: domain file (bytes; the worker reads it, the CLI checks it first). */
const MAX_DOMAIN_FILE_BYTES = 512 * 1024 * 1024;
/**
 * Most entries of a channel CSV read from a file: what the doubles may take in memory, a quarter of the
 * machine's (8 bytes an entry, on one SharedArrayBuffer the job's worker reads in place), at most 2^31 bytes.
 * The engine writes channels of up to 2e9 entries (jobs/channel-csv.ts); every channel up to this size is read.
 */
const MAX_CHANNEL_CSV_ENTRIES = Math.floor(Math.min(totalmem() / 4, 2 ** 31) / 8);
/** Largest channel CSV (bytes): MAX_CHANNEL_CSV_ENTRIES entries of up to ~60 characters. */
const MAX_CHANNEL_CSV_BYTES = MAX_CHANNEL_CSV_ENTRIES * 64;
/** A channel CSV row must sum to 1 within this (text input: hand-written decimals). */
const CHANNEL_ROW_SUM_TOL = 1e-6;

/**
 * Channel CSV (SPEC §8): a header row of output labels after an empty first
 * cell, then one row per secret: label, probabilities. Built record by
 * record: the header fixes the width, every row is checked when it arrives
 * (cell count, labels unique, strict decimal numbers, no negatives, sums to
 * 1) and the entry cap is enforced as rows come in, so memory is bounded by
 * MAX_REQUEST_CHANNEL_ENTRIES doubles.
 */
/**
 * Row labels seen so far, for duplicate detection: open addressing on a
 * string hash into an Int32Array of row indices. A Map with millions of
 * fresh (sliced) strings as keys costs ~1 µs an insert; this ~0.1 µs.
 */
class LabelIndex {
  private slots = new Int32Array(1024).fill(-1);
  private count = 0;
  constructor(private readonly labels: string[]) {}

  private static hash(s: string): number {
    let h = 0x811c9dc5;
    for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193);
    return h >>> 0;
  }

  /** Row index of an earlier equal label, or -1 after recording `index` for it. */
  addOrFind(label: string, index: number): number {
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    const mask = this.slots.length - 1;
    let k = LabelIndex.hash(label) & mask;
    for (;;) {
      const r = this.slots[k]!;
      if (r < 0) {
        this.slots[k] = index;
        this.count++;
        return -1;
      }
      if (this.labels[r] === label) return r;
      k = (k + 1) & mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2).fill(-1);
    const mask = this.slots.length - 1;
    for (let i = 0; i < old.length; i++) {
      const r = old[i]!;
      if (r < 0) continue;
      let k = LabelIndex.hash(this.labels[r]!) & mask;
      while (this.slots[k]! >= 0) k = (k + 1) & mask;
      this.slots[k] = r;
    }
  }
}

/** What the channel's rows must match: the domain's point count, when the domain text tells it. */
interface ChannelRowsExpected {
  rows: number;
  domain: string;
}

class ChannelCsvBuilder {
  private cols = -1;
  private rows = 0;
  private colLabels: string[] = [];
  private readonly rowLabels: string[] = [];
  private readonly rowLines: number[] = [];
  private readonly rowIndex = new LabelIndex(this.rowLabels);
  private data: Float64Array = new Float64Array(0);
  constructor(
    private readonly source: string,
    private readonly maxEntries = MAX_REQUEST_CHANNEL_ENTRIES,
    private readonly expected?: ChannelRowsExpected,
  ) {}

  readonly record = (fields: string[], line: number): void => {
    if (this.cols < 0) this.header(fields, line);
    else this.row(fields, line);
  };

  private header(fields: string[], line: number): void {
    const src = this.source;
    if (fields[0] !== '')
      invalid(
        `${src} line ${line}: the header's first cell must be empty (then one label per output), found '${shortLabel(fields[0]!)}'`,
      );
    const cols = fields.length - 1;
    if (cols === 0) invalid(`${src} line ${line}: the header lists no output labels`);
    if (cols > this.maxEntries)
      invalid(`${src} line ${line}: ${cols} outputs is over the ${this.maxEntries}-entry limit for CSV input`);
    const seen = new Map<string, number>();
    for (let j = 1; j <= cols; j++) {
      const l = fields[j]!;
      const k = seen.get(l);
      if (k !== undefined)
        invalid(`${src} line ${line}: output label '${shortLabel(l)}' appears twice (columns ${k + 1} and ${j + 1})`);
      seen.set(l, j);
    }
    this.cols = cols;
    this.colLabels = fields.slice(1);
    // the domain's size tells the rows: the whole channel at once, else grown by doubling
    this.data = sharedDoubles(Math.min(this.expected ? this.expected.rows * cols : cols * 64, this.maxEntries));
  }

  private row(fields: string[], line: number): void {
    const src = this.source;
    const cols = this.cols;
    if (fields.length !== cols + 1)
      invalid(
        `${src} line ${line}: expected ${cols + 1} cells (label + ${cols} probabilities), found ${fields.length}`,
      );
    const label = fields[0]!;
    const i = this.rows;
    const exp = this.expected;
    if (exp && i + 1 > exp.rows)
      invalid(
        `${src} line ${line}: the channel has more than ${exp.rows} secret rows but the domain ${exp.domain} has ${exp.rows} points`,
      );
    if ((i + 1) * cols > this.maxEntries)
      invalid(
        `${src} line ${line}: more than ${i} rows x ${cols} columns is over the ${this.maxEntries}-entry limit for a channel CSV (its doubles may take a quarter of this machine's memory, at most 2 GiB)`,
      );
    if ((i + 1) * cols > this.data.length) {
      const grown = sharedDoubles(Math.min(Math.max(this.data.length * 2, (i + 1) * cols), this.maxEntries));
      grown.set(this.data);
      this.data = grown;
    }
    const d = this.data;
    const off = i * cols;
    let s = 0;
    for (let j = 0; j < cols; j++) {
      const v = csvNumber(fields[j + 1]!, src, line, j + 1);
      if (v < 0) invalid(`${src} line ${line}, column ${j + 2}: probability ${v} is negative`);
      d[off + j] = v;
      s += v;
    }
    if (!(Math.abs(s - 1) <= CHANNEL_ROW_SUM_TOL))
      invalid(`${src} line ${line}: row '${shortLabel(label)}' sums to ${s}, not 1`);
    this.rowLabels.push(label);
    const before = this.rowIndex.addOrFind(label, i);
    if (before >= 0)
      invalid(
        `${src} line ${line}: row label '${shortLabel(label)}' appears twice (lines ${this.rowLines[before]} and ${line})`,
      );
    this.rowLines.push(line);
    this.rows++;
  }

  /** The channel read, its doubles on shared memory (a worker reads them in place: jobs/kept-channel.ts). */
  finishKept(): KeptChannel {
    if (this.cols < 0 || this.rows === 0)
      invalid(`${this.source}: a channel CSV needs a header row and at least one secret row`);
    const exp = this.expected;
    if (exp && this.rows !== exp.rows)
      invalid(
        `${this.source}: the channel has ${this.rows} secret rows but the domain ${exp.domain} has ${exp.rows} points`,
      );
    const n = this.rows * this.cols;
    let data = this.data;
    if (data.length !== n) {
      data = sharedDoubles(n);
      data.set(this.data.subarray(0, n));
    }
    return { rows: this.rows, cols: this.cols, data, rowLabels: this.rowLabels, colLabels: this.colLabels };
  }

  /**
   * The channel read, as a request carries it inline (at most MAX_REQUEST_CHANNEL_ENTRIES entries: see channelInput).
   */
  finish(): ChannelPayload {
    return payloadOf(this.finishKept());
  }
}

/** Doubles on a SharedArrayBuffer. */
function sharedDoubles(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT));
}

/** A channel's doubles as the number array a request carries inline. */
function payloadOf(ch: KeptChannel): ChannelPayload {
  const n = ch.rows * ch.cols;
  const data = new Array<number>(n);
  for (let k = 0; k < n; k++) data[k] = ch.data[k]!;
  return { rows: ch.rows, cols: ch.cols, data, rowLabels: ch.rowLabels, colLabels: ch.colLabels };
}

/** Channel CSV text to a payload (the same checks as readChannelCsv). */
export function parseChannelCsv(text: string, source: string): ChannelPayload {
  const b = new ChannelCsvBuilder(source);
  const t = new CsvTokenizer(source, b.record);
  t.push(text);
  t.end();
  return b.finish();
}

/**
 * Read a channel CSV file: regular files only (stat before open), at most
 * MAX_CHANNEL_CSV_BYTES, streamed and checked as it arrives (a bad row is
 * reported when it is read, not after the whole file is in memory). With
 * `expected` (the domain's size), a channel with too many rows is refused at
 * the first row too many. The doubles go straight into shared memory, up to
 * MAX_CHANNEL_CSV_ENTRIES of them (every channel the engine writes that fits).
 */
async function readChannelCsvKept(
  path: string,
  signal?: AbortSignal,
  expected?: ChannelRowsExpected,
): Promise<KeptChannel> {
  const b = new ChannelCsvBuilder(path, MAX_CHANNEL_CSV_ENTRIES, expected);
  const t = new CsvTokenizer(path, b.record);
  const dec = new StringDecoder('utf8');
  await readRegularFileChunks(path, 'channel CSV', MAX_CHANNEL_CSV_BYTES, (chunk) => t.push(dec.write(chunk)), signal);
  t.push(dec.end());
  t.end();
  return b.finishKept();
}

/**
 * A channel CSV as a request takes it: inline (`channel`) up to MAX_REQUEST_CHANNEL_ENTRIES entries, which
 * small jobs run on the CLI's own thread; a larger one (`kept`) is handed to the dispatcher's channel store and
 * named by channelRef, so the worker reads its doubles in place (2,500 x 2,500 is 50 MB, no copy, no parse).
 */
export async function readChannelCsv(
  path: string,
  signal?: AbortSignal,
  expected?: ChannelRowsExpected,
): Promise<{ channel: ChannelPayload; kept?: undefined } | { channel?: undefined; kept: KeptChannel }> {
  const kept = await readChannelCsvKept(path, signal, expected);
  return kept.rows * kept.cols <= MAX_REQUEST_CHANNEL_ENTRIES ? { channel: payloadOf(kept) } : { kept };
}

/** Numbers collected into a growing Float64Array, at most `max`. */
class NumberSink {
  private data = new Float64Array(1024);
  length = 0;
  constructor(
    private readonly max: number,
    private readonly what: string,
  ) {}
  push(v: number, line: number): void {
    if (this.length === this.data.length) {
      if (this.length >= this.max)
        invalid(`${this.what} line ${line}: more than ${this.max} numbers, over the limit for CSV input`);
      const grown = new Float64Array(Math.min(this.data.length * 2, this.max));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }
  toArray(): number[] {
    const out = new Array<number>(this.length);
    for (let k = 0; k < this.length; k++) out[k] = this.data[k]!;
    return out;
  }
}

/** A prior CSV: every cell a probability, any layout (one per line, or rows of them). */
function readPriorCsv(file: string, expected?: ChannelRowsExpected): number[] {
  const sink = new NumberSink(MAX_PRIOR_CSV_ENTRIES, `prior CSV ${file}`);
  tokenizeFileSync(file, 'prior CSV', MAX_PRIOR_CSV_BYTES, (fields, line) => {
    if (expected && sink.length + fields.length > expected.rows) {
      invalid(
        `prior CSV ${file} line ${line}: more than ${expected.rows} entries but the domain ${expected.domain} has ${expected.rows} points`,
      );
    }
    for (let j = 0; j < fields.length; j++) {
      const v = csvNumber(fields[j]!, file, line, j);
      if (v < 0) invalid(`prior CSV ${file}: entry ${sink.length + 1} (${v}, line ${line}) is negative`);
      sink.push(v, line);
    }
  });
  if (sink.length === 0) invalid(`${file}: no numbers found`);
  return sink.toArray();
}

/**
 * Every numeric cell of a CSV file, row by row, left to right; cells that
 * are not numbers (a header, a time column) are skipped. Streamed, at most
 * MAX_PRIOR_CSV_ENTRIES numbers (case-study parameters: traces, weights).
 */
export function readNumericCells(file: string, what: string): number[] {
  const sink = new NumberSink(MAX_PRIOR_CSV_ENTRIES, `${what} ${file}`);
  tokenizeFileSync(file, what, MAX_CSV_BYTES, (fields, line) => {
    for (const c of fields) {
      const v = parseDecimal(c);
      if (v !== null) sink.push(v, line);
    }
  });
  return sink.toArray();
}

/** A loss CSV: rows = guesses, optional header row and label column, columns = secrets. */
function readLossCsv(file: string): LossInput {
  const isNumber = (f: string | undefined): boolean => f !== undefined && parseDecimal(f) !== null;
  let first = true;
  let labelled = false;
  let cols = -1;
  let rows = 0;
  const sink = new NumberSink(MAX_REQUEST_CHANNEL_ENTRIES, `loss CSV ${file}`);
  const rowLabels: string[] = [];
  tokenizeFileSync(file, 'loss CSV', MAX_LOSS_CSV_BYTES, (fields, line) => {
    if (first) {
      first = false;
      // a header row: a first cell that is empty, or any later cell that is not a number
      if (fields[0] === '' || !fields.slice(1).every(isNumber)) return;
    }
    if (cols < 0) {
      labelled = !isNumber(fields[0]);
      cols = fields.length - (labelled ? 1 : 0);
      if (cols < 1) invalid(`loss CSV ${file} line ${line}: a row needs at least one number`);
    }
    const off = labelled ? 1 : 0;
    if (fields.length - off !== cols)
      invalid(`loss CSV ${file} line ${line}: expected ${cols} numbers, found ${fields.length - off}`);
    if (labelled) rowLabels.push(fields[0]!);
    for (let j = off; j < fields.length; j++) {
      const v = csvNumber(fields[j]!, file, line, j);
      if (v < 0)
        invalid(
          `loss CSV ${file} line ${line}, column ${j + 1}: loss matrix entry (row ${rows + 1}, column ${j - off + 1}) is ${v}: a loss must be >= 0`,
        );
      sink.push(v, line);
    }
    rows++;
  });
  if (first) invalid(`loss CSV ${file}: no rows`);
  if (rows === 0) invalid(`loss CSV ${file}: no rows of numbers`);
  const data = sink.toArray();
  return labelled ? { kind: 'matrix', rows, cols, data, rowLabels } : { kind: 'matrix', rows, cols, data };
}

/**
 * Prior text (SPEC §8): uniform, product:p1,p2,..., csv:FILE, or a comma
 * list. With `points` (the domain's size), a prior CSV with more entries is
 * refused at the line where it passes the count, not after reading it all.
 */
export function parsePriorArg(text: string, baseDir = process.cwd(), points?: ChannelRowsExpected): PriorInput {
  const r = parsePriorSpecText(text);
  if (!r.ok) invalid(r.error);
  const p = r.prior;
  if (p.kind === 'csv') return { kind: 'vector', values: readPriorCsv(absolute(p.file, baseDir), points) };
  if (p.kind === 'points') {
    const pp = parsePointsPriorArg(p.text, baseDir);
    if (points && points.rows !== pp.grid.rows * pp.grid.cols)
      invalid(
        `the points prior's grid ${pp.domain} has ${pp.grid.rows * pp.grid.cols} cells but the domain ${points.domain} has ${points.rows} points`,
      );
    return pp.prior;
  }
  return p.kind === 'uniform' ? 'uniform' : p;
}

/** Loss text (SPEC §8): bin, nib, dist, dist2, csv:FILE (rows = guesses, optional label column, columns = secrets). */
export function parseLossArg(text: string, baseDir = process.cwd()): LossInput {
  const t = text.trim();
  const builtin = builtinLossSchema.safeParse(t);
  if (builtin.success) return builtin.data;
  if (t.startsWith('csv:')) return readLossCsv(absolute(t.slice(4), baseDir));
  invalid(`unknown loss '${text}': use bin, nib, dist, dist2 or csv:FILE`);
}

/** Domain text: graph:FILE and csv:FILE become absolute paths (workers resolve them); the rest is passed through. */
export function resolveDomainArg(text: string, baseDir = process.cwd()): string {
  const t = text.trim();
  if (t === '') invalid('domain is empty (e.g. line:6, clique:5, grid:20x20:step=1)');
  const g = parseDomainSpecText(t);
  if (g.ok && (g.spec.kind === 'graph' || g.spec.kind === 'csv')) {
    const file = absolute(g.spec.file, baseDir);
    // fail early, on this side, with a clear message
    checkReadableFileSync(file, `${g.spec.kind} domain file`, MAX_DOMAIN_FILE_BYTES);
    return `${g.spec.kind}:${file}`;
  }
  return t;
}

/**
 * The number of points a domain text names, when it can be told from the
 * text alone (the engine's admission estimate: no allocation); undefined for
 * graph:/csv: files. A malformed spec is the engine's MechError.
 */
export function domainPointsFromText(domain: string): ChannelRowsExpected | undefined {
  const size = sizeOfDomainInput(domain);
  if (!size || !Number.isFinite(size.n)) return undefined;
  return { rows: size.n, domain: size.name };
}

export { parsePointsPriorArg, splitPointsPrior, type PointsPrior } from './points-prior';
export { CsvTokenizer, numberProblem, parseDecimal } from './csv-cells';
