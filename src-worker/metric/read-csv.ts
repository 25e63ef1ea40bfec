import { parse } from 'csv-parse/sync';
import { invalid } from '../../src-shared/errors';
import { CSV_PROBLEM_WORDS, type CsvProblemCode, type CsvRow } from '../../src-shared/csv/csv-reader';

/** csv-parse's error codes as the shared reader's problems (the library's messages quote the field; these words do not). */
const CSV_PROBLEMS: Record<string, CsvProblemCode> = {
  CSV_QUOTE_NOT_CLOSED: 'quote-not-closed',
  CSV_INVALID_OPENING_QUOTE: 'opening-quote',
  INVALID_OPENING_QUOTE: 'opening-quote',
  CSV_INVALID_CLOSING_QUOTE: 'closing-quote',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'closing-quote',
};
const OTHER_PROBLEMS: Record<string, string> = {
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'the row has a different number of fields',
  CSV_MAX_RECORD_SIZE: 'a record is too long',
};

export type { CsvRow };

function problemWords(code: string | undefined): string {
  const shared = CSV_PROBLEMS[code ?? ''];
  return shared ? CSV_PROBLEM_WORDS[shared] : (OTHER_PROBLEMS[code ?? ''] ?? 'the text is not valid CSV');
}

/** csv-parse's options for the one dialect (docs/cli-and-formats.md, "The CSV dialect"); the streaming reader (data/apply.ts) uses them too. */
export const CSV_PARSE_OPTIONS = {
  info: true,
  relax_column_count: true,
  skip_empty_lines: true,
  trim: true,
  comment: '#',
  comment_no_infix: true,
  bom: true,
} as const;

/** A csv-parse failure as one 'invalid-input': what is wrong and where, never the content (csv-parse's own message quotes the field). */
export function malformedCsv(source: string, e: unknown): never {
  const err = e as { code?: string; lines?: number; column?: number | string };
  const where = `${err.lines ? ` at line ${err.lines}` : ''}${typeof err.column === 'number' ? `, field ${err.column + 1}` : ''}`;
  return invalid(`${source}: malformed CSV${where}: ${problemWords(err.code)}`, {
    ...(err.lines ? { line: err.lines } : {}),
    ...(err.code ? { csvCode: err.code } : {}),
  });
}

/**
 * Parse CSV text into trimmed records (empty lines and '#' comment lines
 * skipped, ragged rows allowed: callers check widths and report them by
 * line; `delimiters` as the shared reader's). Malformed CSV (an unclosed
 * quote, ...) is a MechError 'invalid-input' naming the source and line. The one CSV reader of the
 * engine and the CLI (src-main/fs/inputs.ts re-exports it as parseCsv);
 * the browser side reads the same dialect with src-shared/csv/csv-reader.ts
 * (same records on the same text: test/unit/csv/csv-agreement.test.ts).
 */
export function readCsvRows(text: string, source: string, delimiters: readonly string[] = [',']): CsvRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { ...CSV_PARSE_OPTIONS, delimiter: [...delimiters] }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (e) {
    malformedCsv(source, e);
  }
  const out: CsvRow[] = [];
  for (const r of records) {
    if (r.record.every((f) => f === '')) continue;
    out.push({ fields: r.record, line: r.info.lines });
  }
  return out;
}
