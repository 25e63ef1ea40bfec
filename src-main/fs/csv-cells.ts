/**
 * The bottom of the CLI's and hosts' file readers: strict numbers in CSV
 * cells, the incremental CSV tokenizer (the shared reader fed chunk by chunk,
 * its problems as one MechError naming the file), a file tokenized as it is
 * read, and paths relative to a base folder. inputs.ts and points-prior.ts
 * build on it.
 */
import { isAbsolute, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { invalid } from '../../src-shared/errors';
import { decimalProblem, parseDecimal as engineParseDecimal } from '../../src-shared/numeric/decimal';
import { CsvFailure, CsvLineReader } from '../../src-shared/csv/csv-reader';
import { readRegularFileChunksSync } from './safe-fs';

/** Longest single CSV line of a channel (characters): a header of MAX_REQUEST_CHANNEL_ENTRIES labels fits. */
const MAX_CHANNEL_LINE_CHARS = 64 * 1024 * 1024;

/**
 * Numbers typed by a user (flags, comma lists, CSV cells) go through the
 * engine's one strict parser (src-shared/numeric/decimal.ts): a plain
 * decimal, optional sign and exponent, finite, not a non-zero literal that
 * rounds to 0. No hex ('0x10'), 'Infinity', 'NaN', '1_000' or empty text,
 * which Number() would accept or turn into 0. Surrounding blanks are trimmed.
 */
export function parseDecimal(text: string): number | null {
  return engineParseDecimal(text.trim()) ?? null;
}

/** Why text is not a number ('is not a number', 'is out of the range of a 64-bit float', ...), or undefined. */
export function numberProblem(text: string): string | undefined {
  const p = decimalProblem(text.trim());
  return p === 'is not a decimal number' || p === 'is empty' ? 'is not a number' : p;
}

/** A CSV cell as a finite number, or an error naming file, line and column. */
export function csvNumber(cell: string, source: string, line: number, col: number): number {
  const v = parseDecimal(cell);
  if (v === null)
    invalid(
      `${source} line ${line}, column ${col + 1}: '${shortLabel(cell)}' ${numberProblem(cell) ?? 'is not a number'}`,
    );
  return v;
}

export function shortLabel(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}...` : s;
}

/**
 * Incremental CSV tokenizer for channel files: the shared reader
 * (src-shared/csv/csv-reader.ts, CsvLineReader: the engine reader's dialect)
 * fed chunk by chunk, so a file is checked as it streams in and memory holds
 * one line at a time; its problems become one MechError naming the file.
 */
export class CsvTokenizer {
  private readonly reader: CsvLineReader;
  constructor(
    private readonly source: string,
    onRecord: (fields: string[], line: number) => void,
    private readonly maxLine = MAX_CHANNEL_LINE_CHARS,
    private readonly kind = 'a channel CSV',
  ) {
    this.reader = new CsvLineReader(onRecord, { maxLineChars: maxLine });
  }

  push(text: string): void {
    this.guard(() => this.reader.push(text));
  }

  end(): void {
    this.guard(() => this.reader.end());
  }

  private guard(step: () => void): void {
    try {
      step();
    } catch (e) {
      if (!(e instanceof CsvFailure)) throw e;
      const p = e.problem;
      if (p.code === 'line-too-long')
        invalid(`${this.source} line ${p.line}: a line longer than ${this.maxLine} characters; is this ${this.kind}?`);
      invalid(`${this.source}: ${p.message}`, { line: p.line });
    }
  }
}

/**
 * Tokenize a CSV file as it is read (1 MiB at a time): memory holds one line, not the file. `onBytes`: the size of each
 * chunk read.
 */
export function tokenizeFileSync(
  file: string,
  what: string,
  maxBytes: number,
  onRecord: (fields: string[], line: number) => void,
  lines?: { maxChars: number; kind: string; onBytes: (n: number) => void },
): void {
  const t = lines ? new CsvTokenizer(file, onRecord, lines.maxChars, lines.kind) : new CsvTokenizer(file, onRecord);
  const dec = new StringDecoder('utf8');
  readRegularFileChunksSync(file, what, maxBytes, (c) => {
    lines?.onBytes(c.length);
    t.push(dec.write(c));
  });
  t.push(dec.end());
  t.end();
}

export function absolute(file: string, baseDir: string): string {
  return isAbsolute(file) ? file : resolve(baseDir, file);
}
