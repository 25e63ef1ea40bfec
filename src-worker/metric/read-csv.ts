import { parse } from 'csv-parse/sync';
import { invalid } from '../errors';

/** What each csv-parse error code means, in words (the library's messages quote the field). */
const CSV_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed before the end of the file',
  CSV_INVALID_OPENING_QUOTE: 'a quote appears inside an unquoted field',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted field is followed by other characters before the delimiter',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'a quoted field is followed by other characters before the delimiter',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'the row has a different number of fields',
  CSV_MAX_RECORD_SIZE: 'a record is too long',
};

/** One CSV record with the (1-based) line of the input where it ends. */
export interface CsvRow {
  fields: string[];
  line: number;
}

/**
 * Parse CSV text into trimmed records (empty lines and '#' comment lines
 * skipped, ragged rows allowed: callers check widths and report them by
 * line). Malformed CSV (an unclosed quote, ...) is a MechError
 * 'invalid-input' naming the source and line. The one CSV reader of the
 * engine and the CLI (src-main/fs/inputs.ts re-exports it as parseCsv).
 */
export function readCsvRows(text: string, source: string): CsvRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      comment: '#',
      comment_no_infix: true,
      bom: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (e) {
    // csv-parse's own message quotes the offending field: say what is wrong and where, never the content.
    const err = e as { code?: string; lines?: number; column?: number | string };
    const where = `${err.lines ? ` at line ${err.lines}` : ''}${typeof err.column === 'number' ? `, field ${err.column + 1}` : ''}`;
    invalid(`${source}: malformed CSV${where}: ${CSV_PROBLEMS[err.code ?? ''] ?? 'the text is not valid CSV'}`, { ...(err.lines ? { line: err.lines } : {}), ...(err.code ? { csvCode: err.code } : {}) });
  }
  const out: CsvRow[] = [];
  for (const r of records) {
    if (r.record.every((f) => f === '')) continue;
    out.push({ fields: r.record, line: r.info.lines });
  }
  return out;
}
