/**
 * The one CSV reader of the product: the page, the engine and the CLI
 * (src-worker/metric/read-csv.ts names the file in its messages; files are
 * pushed chunk by chunk as they stream in: CsvLineReader), so a file the
 * app accepts is one the engine accepts, field for field. Written by hand
 * for speed (a 52 MB channel file: 176 ms, against 2.9 s for csv-parse);
 * test/unit/shared/csv/csv-reader.test.ts checks it against csv-parse.
 *
 * The dialect, as csv-parse with { trim, skip_empty_lines, comment: '#',
 * comment_no_infix, bom, relax_column_count }:
 *  - lines end at \n or \r\n (a lone \r is not a line end); a leading
 *    byte-order mark is dropped;
 *  - fields are separated by ',' (or any of `delimiters`) and trimmed of
 *    blanks outside quotes;
 *  - a field may be quoted ("..."), with "" for a quote inside; a quoted
 *    field keeps its white space and may span lines;
 *  - a record whose first non-blank character is '#' is a comment;
 *  - records whose fields are all empty (blank lines, ',,') are skipped;
 *  - rows may differ in width (callers check and report by line);
 *  - a quote inside an unquoted field, characters after a closing quote, or
 *    a quote never closed is a CsvProblem naming line and field, never the
 *    text (a '#' right after a closing quote too, where csv-parse would
 *    read a comment: the stricter answer).
 */

/** One record with the (1-based) line of the input where it ends. */
export interface CsvRow {
  fields: string[];
  line: number;
}

export type CsvProblemCode = 'quote-not-closed' | 'opening-quote' | 'closing-quote' | 'line-too-long';

/** What each problem means, in words. */
export const CSV_PROBLEM_WORDS: Record<CsvProblemCode, string> = {
  'quote-not-closed': 'a quoted field is not closed before the end of the file',
  'opening-quote': 'a quote appears inside an unquoted field',
  'closing-quote': 'a quoted field is followed by other characters before the delimiter',
  'line-too-long': 'a line is longer than the reader takes',
};

export interface CsvProblem {
  code: CsvProblemCode;
  /** 1-based line where the problem is found (for a quote never closed: the line where its record starts). */
  line: number;
  /** 1-based field of the record. */
  field: number;
  /** "malformed CSV at line L, field F: <words>" */
  message: string;
}

interface CsvReadOptions {
  /** Field separators, each one character (default [',']). */
  delimiters?: readonly string[];
  /** Stop after this many records (a preview of a large file). */
  maxRows?: number;
}

/** Separators of the editors' pasted tables: spreadsheets copy tabs, some locales write ';'. */
export const TABLE_DELIMITERS: readonly string[] = [',', ';', '\t'];

export type CsvRead = { ok: true; rows: CsvRow[] } | { ok: false; problem: CsvProblem };

const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const HASH = 35;

/** Thrown by CsvLineReader; readCsv turns it into its result, the CLI into a MechError. */
export class CsvFailure extends Error {
  constructor(readonly problem: CsvProblem) {
    super(problem.message);
  }
}

/**
 * The reader itself, incremental: text is pushed chunk by chunk (a file as
 * it streams in; memory holds one line at a time, plus an open quoted
 * field), and each record is handed to `onRecord` with the line where it
 * ends. Lines end at \n (a \r before it is dropped). A line without quotes
 * takes a fast path (split and trim). Problems are thrown as CsvFailure.
 */
export class CsvLineReader {
  private pending = '';
  private line = 0;
  private first = true;
  private stopped = false;
  /** An open quoted field spanning lines: the record's fields so far and the open cell. */
  private fields: string[] | null = null;
  private cell = '';
  private readonly delims: readonly string[];
  private readonly commaOnly: boolean;
  private readonly maxLine: number;

  constructor(
    private readonly onRecord: (fields: string[], line: number) => void,
    opts: CsvReadOptions & { maxLineChars?: number } = {},
  ) {
    this.delims = opts.delimiters ?? [','];
    this.commaOnly = this.delims.length === 1 && this.delims[0] === ',';
    this.maxLine = opts.maxLineChars ?? Infinity;
  }

  /** Read no further (a caller that has what it needs). */
  stop(): void {
    this.stopped = true;
  }

  push(text: string): void {
    if (this.stopped) return;
    if (this.first && text.length) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.first = false;
    }
    if (text.indexOf('\n') < 0) {
      this.pending += text; // no line end yet: keep collecting
      this.checkLength();
      return;
    }
    const data = this.pending + text;
    let start = 0;
    while (!this.stopped) {
      const nl = data.indexOf('\n', start);
      if (nl < 0) break;
      const cr = nl > start && data.charCodeAt(nl - 1) === 13;
      this.line++;
      this.handleLine(data.slice(start, cr ? nl - 1 : nl), cr);
      start = nl + 1;
    }
    this.pending = this.stopped ? '' : data.slice(start);
    this.checkLength();
  }

  end(): void {
    if (this.stopped) return;
    if (this.pending.length || this.fields) {
      this.line++;
      const cr = this.pending.endsWith('\r');
      const rest = cr ? this.pending.slice(0, -1) : this.pending;
      this.pending = '';
      this.handleLine(rest, cr);
    }
    if (this.fields) {
      this.line = this.recordLine;
      this.fail('quote-not-closed', this.fields.length + 1);
    }
  }

  private checkLength(): void {
    if (this.pending.length + this.cell.length > this.maxLine) {
      const line = this.line + 1;
      throw new CsvFailure({
        code: 'line-too-long',
        line,
        field: 1,
        message: `malformed CSV at line ${line}: a line longer than ${this.maxLine} characters`,
      });
    }
  }

  private fail(code: CsvProblemCode, field: number): never {
    throw new CsvFailure({
      code,
      line: this.line,
      field,
      message: `malformed CSV at line ${this.line}, field ${field}: ${CSV_PROBLEM_WORDS[code]}`,
    });
  }

  /** Index of the next delimiter at or after `from`, or -1. */
  private nextDelim(text: string, from: number): number {
    if (this.commaOnly) return text.indexOf(',', from);
    let best = -1;
    for (const d of this.delims) {
      const k = text.indexOf(d, from);
      if (k >= 0 && (best < 0 || k < best)) best = k;
    }
    return best;
  }

  /** One line; `cr` when it ended in \r\n (kept inside a quoted field that spans it). */
  private handleLine(text: string, cr: boolean): void {
    if (this.fields !== null) {
      // continuing a quoted cell across a line break
      this.scan(text, true);
      return;
    }
    if (text.length === 0) return;
    let b = 0;
    while (b < text.length && (text.charCodeAt(b) === SPACE || text.charCodeAt(b) === TAB)) b++;
    if (text.charCodeAt(b) === HASH) return; // a comment: '#' first, after blanks
    if (text.indexOf('"') < 0) {
      const parts = this.commaOnly ? text.split(',') : splitOn(text, this.delims);
      let empty = true;
      for (let k = 0; k < parts.length; k++) {
        const t = parts[k]!.trim();
        parts[k] = t;
        if (t !== '') empty = false;
      }
      if (!empty) this.onRecord(parts, this.line);
      return;
    }
    this.fields = [];
    this.cell = '';
    this.recordLine = this.line;
    this.eol = cr ? '\r\n' : '\n';
    this.scan(text, false);
  }

  /** The line end inside an open quoted field. */
  private eol = '\n';
  /** The line where the record being scanned (with quotes) started: a quote never closed is reported there. */
  private recordLine = 0;

  /** Character scan of a line with quotes; `inQuote` when a quoted cell is open from the line before. */
  private scan(text: string, inQuote: boolean): void {
    const fields = this.fields!;
    let cell = inQuote ? this.cell + this.eol : this.cell;
    let i = 0;
    const n = text.length;
    for (;;) {
      if (inQuote) {
        const q = text.indexOf('"', i);
        if (q < 0) {
          this.cell = cell + text.slice(i);
          return; // the cell goes on on the next line
        }
        cell += text.slice(i, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          cell += '"';
          i = q + 2;
          continue;
        }
        // closing quote: only blanks may follow before a delimiter or the end
        i = q + 1;
        while (i < n && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) i++;
        if (i < n && !this.delims.includes(text[i]!)) this.fail('closing-quote', fields.length + 1);
        fields.push(cell);
        cell = '';
        inQuote = false;
        if (i >= n) break;
        i++; // past the delimiter
        if (i >= n) {
          fields.push('');
          break;
        }
        continue;
      }
      // start of a cell: skip blanks, then quoted or plain
      let j = i;
      while (j < n && (text.charCodeAt(j) === SPACE || text.charCodeAt(j) === TAB)) j++;
      if (j < n && text.charCodeAt(j) === QUOTE) {
        inQuote = true;
        i = j + 1;
        cell = '';
        continue;
      }
      const delim = this.nextDelim(text, i);
      const end = delim < 0 ? n : delim;
      const plain = text.slice(i, end);
      if (plain.indexOf('"') >= 0) this.fail('opening-quote', fields.length + 1);
      fields.push(plain.trim());
      if (delim < 0) break;
      i = delim + 1;
      if (i >= n) {
        fields.push('');
        break;
      }
    }
    this.fields = null;
    this.cell = '';
    if (fields.some((f) => f !== '')) this.onRecord(fields, this.line);
  }
}

function splitOn(text: string, delims: readonly string[]): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (delims.includes(text[i]!)) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** Read CSV text into records (see the header for the dialect). */
export function readCsv(text: string, opts: CsvReadOptions = {}): CsvRead {
  const rows: CsvRow[] = [];
  const maxRows = opts.maxRows ?? Infinity;
  const reader = new CsvLineReader((fields, line) => {
    rows.push({ fields, line });
    if (rows.length >= maxRows) reader.stop();
  }, opts);
  try {
    reader.push(text);
    reader.end();
  } catch (e) {
    if (e instanceof CsvFailure) return { ok: false, problem: e.problem };
    throw e;
  }
  return { ok: true, rows };
}
