import { parse } from 'csv-parse/sync';
import { invalid } from '../errors';

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
 * engine and the CLI (src-main/cli/inputs.ts re-exports it as parseCsv).
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
    const err = e as { message?: string; lines?: number };
    invalid(`${source}: malformed CSV${err.lines ? ` at line ${err.lines}` : ''}: ${(err.message ?? String(e)).replace(/^Invalid Record Length: /, '')}`);
  }
  const out: CsvRow[] = [];
  for (const r of records) {
    if (r.record.every((f) => f === '')) continue;
    out.push({ fields: r.record, line: r.info.lines });
  }
  return out;
}
