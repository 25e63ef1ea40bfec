import { invalid } from '../../src-shared/errors';
import { CsvFailure, CsvLineReader, type CsvProblem, type CsvRow, readCsv } from '../../src-shared/csv/csv-reader';

export type { CsvRow };

/** A reader's problem as one 'invalid-input' naming the source, line and field, never the content. */
function malformedCsv(source: string, problem: CsvProblem): never {
  return invalid(`${source}: ${problem.message}`, { line: problem.line });
}

/**
 * Parse CSV text into trimmed records (empty lines and '#' comment lines
 * skipped, ragged rows allowed: callers check widths and report them by
 * line; `delimiters` as the shared reader's). Malformed CSV (an unclosed
 * quote, ...) is a MechError 'invalid-input' naming the source and line.
 * The one CSV reader of the whole product (src-shared/csv/csv-reader.ts:
 * the browser, the engine and the CLI read the same records from the same
 * text); this wrapper only names the source in its failure.
 */
export function readCsvRows(text: string, source: string, delimiters: readonly string[] = [',']): CsvRow[] {
  const read = readCsv(text, { delimiters });
  if (!read.ok) malformedCsv(source, read.problem);
  return read.rows;
}

/**
 * The same reader over a stream of chunks (a file read 1 MiB at a time):
 * records are yielded as the chunks arrive, so memory holds one chunk's
 * records and the line being read. Bytes are decoded as UTF-8 across chunk
 * boundaries.
 */
export async function* readCsvStream(
  input: AsyncIterable<string | Uint8Array>,
  source: string,
): AsyncGenerator<CsvRow, void, undefined> {
  let ready: CsvRow[] = [];
  const reader = new CsvLineReader((fields, line) => ready.push({ fields, line }));
  const decoder = new TextDecoder('utf-8');
  const step = (feed: () => void): CsvRow[] => {
    try {
      feed();
    } catch (e) {
      if (e instanceof CsvFailure) malformedCsv(source, e.problem);
      throw e;
    }
    const out = ready;
    ready = [];
    return out;
  };
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    yield* step(() => reader.push(text));
  }
  yield* step(() => {
    reader.push(decoder.decode());
    reader.end();
  });
}
