/**
 * The CSV reader of the browser side (and of small texts anywhere): the
 * same records as the engine's csv-parse reader (src-worker/metric/
 * read-csv.ts) on the same text, so a file the app accepts is one the
 * engine accepts, field for field. test/unit/csv/csv-agreement.test.ts runs
 * both on the same inputs.
 *
 * The dialect, as csv-parse with { trim, skip_empty_lines, comment: '#',
 * comment_no_infix, bom, relax_column_count }:
 *  - records end at \n, \r\n or \r; a leading byte-order mark is dropped;
 *  - fields are separated by ',' (or any of `delimiters`) and trimmed of
 *    white space outside quotes;
 *  - a field may be quoted ("..."), with "" for a quote inside; a quoted
 *    field keeps its white space and may span lines;
 *  - a record whose first non-blank character is '#' is a comment;
 *  - records whose fields are all empty (blank lines, ',,') are skipped;
 *  - rows may differ in width (callers check and report by line);
 *  - a quote inside an unquoted field, characters after a closing quote, or
 *    a quote never closed is a CsvProblem naming line and field, never the
 *    text.
 */

/** One record with the (1-based) line of the input where it ends. */
export interface CsvRow {
  fields: string[];
  line: number;
}

export type CsvProblemCode = 'quote-not-closed' | 'opening-quote' | 'closing-quote';

/** What each problem means, in words (shared with the engine's reader, which maps csv-parse's codes onto these). */
export const CSV_PROBLEM_WORDS: Record<CsvProblemCode, string> = {
  'quote-not-closed': 'a quoted field is not closed before the end of the file',
  'opening-quote': 'a quote appears inside an unquoted field',
  'closing-quote': 'a quoted field is followed by other characters before the delimiter',
};

export interface CsvProblem {
  code: CsvProblemCode;
  /** 1-based line where the problem is found (for a quote never closed: where it opened). */
  line: number;
  /** 1-based field of the record. */
  field: number;
  /** "malformed CSV at line L, field F: <words>" */
  message: string;
}

export interface CsvReadOptions {
  /** Field separators, each one character (default [',']). */
  delimiters?: readonly string[];
  /** Stop after this many records (a preview of a large file). */
  maxRows?: number;
}

/** Separators of the editors' pasted tables: spreadsheets copy tabs, some locales write ';'. */
export const TABLE_DELIMITERS: readonly string[] = [',', ';', '\t'];

export type CsvRead = { ok: true; rows: CsvRow[] } | { ok: false; problem: CsvProblem };

const isBlank = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\f' || ch === '\v' || ch === '\u00a0' || ch === '\ufeff';
const isNewline = (ch: string | undefined): boolean => ch === '\n' || ch === '\r';

class CsvFailure extends Error {
  constructor(readonly problem: CsvProblem) {
    super(problem.message);
  }
}

/** A cursor over the text that counts lines. */
class Cursor {
  at = 0;
  line = 1;
  constructor(readonly text: string) {}
  get ch(): string | undefined {
    return this.text[this.at];
  }
  /** Step over one newline (\r\n counts once). */
  newline(): void {
    if (this.text[this.at] === '\r' && this.text[this.at + 1] === '\n') this.at++;
    this.at++;
    this.line++;
  }
  fail(code: CsvProblemCode, field: number, line = this.line): never {
    throw new CsvFailure({ code, line, field, message: `malformed CSV at line ${line}, field ${field}: ${CSV_PROBLEM_WORDS[code]}` });
  }
}

/** A quoted field, the cursor on its opening quote; returns its text, the cursor after the closing quote. */
function quotedField(c: Cursor, field: number): string {
  let out = '';
  const opened = c.line;
  c.at++;
  for (;;) {
    const ch = c.ch;
    if (ch === undefined) c.fail('quote-not-closed', field, opened);
    if (ch === '"') {
      if (c.text[c.at + 1] !== '"') {
        c.at++;
        return out;
      }
      out += '"';
      c.at += 2;
    } else if (isNewline(ch)) {
      out += ch === '\r' && c.text[c.at + 1] === '\n' ? '\r\n' : ch;
      c.newline();
    } else {
      out += ch;
      c.at++;
    }
  }
}

/** One record from the cursor (at a record's start) to its newline or the end; the cursor after the newline. */
function record(c: Cursor, delims: ReadonlySet<string>): string[] {
  const fields: string[] = [];
  for (;;) {
    const field = fields.length + 1;
    while (c.ch !== undefined && isBlank(c.ch)) c.at++;
    let value: string;
    if (c.ch === '"') {
      value = quotedField(c, field);
      while (c.ch !== undefined && isBlank(c.ch)) c.at++;
      if (c.ch !== undefined && !isNewline(c.ch) && !delims.has(c.ch)) c.fail(c.ch === '"' ? 'opening-quote' : 'closing-quote', field);
    } else {
      const start = c.at;
      while (c.ch !== undefined && !isNewline(c.ch) && !delims.has(c.ch)) {
        if (c.ch === '"') c.fail('opening-quote', field);
        c.at++;
      }
      value = c.text.slice(start, c.at).replace(/[ \t\f\v\u00a0\ufeff]+$/, '');
    }
    fields.push(value);
    if (c.ch !== undefined && delims.has(c.ch)) {
      c.at++;
      continue;
    }
    return fields;
  }
}

/** Skip a comment record (first non-blank character '#') and report whether there was one. */
function skipComment(c: Cursor): boolean {
  let i = c.at;
  while (i < c.text.length && isBlank(c.text[i]!)) i++;
  if (c.text[i] !== '#') return false;
  while (c.ch !== undefined && !isNewline(c.ch)) c.at++;
  return true;
}

/** Read CSV text into records (see the header for the dialect). */
export function readCsv(text: string, opts: CsvReadOptions = {}): CsvRead {
  const delims = new Set(opts.delimiters ?? [',']);
  const maxRows = opts.maxRows ?? Infinity;
  const c = new Cursor(text.startsWith('\ufeff') ? text.slice(1) : text);
  const rows: CsvRow[] = [];
  try {
    while (c.ch !== undefined && rows.length < maxRows) {
      if (!skipComment(c)) {
        const fields = record(c, delims);
        if (fields.some((f) => f !== '')) rows.push({ fields, line: c.line });
      }
      if (c.ch !== undefined) c.newline();
    }
  } catch (e) {
    if (e instanceof CsvFailure) return { ok: false, problem: e.problem };
    throw e;
  }
  return { ok: true, rows };
}
