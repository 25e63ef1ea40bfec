/**
 * The product's one CSV reader (src-shared/csv/csv-reader.ts, used by the
 * page, the engine and the CLI) gives the records, line numbers and problems
 * the csv-parse library gives on the same text (csv-parse-oracle.ts): hand-picked cases of
 * quoting, comments, blank lines, line endings and delimiters, then 3,000
 * random texts over an alphabet made of exactly those characters, each cut
 * into random chunks for the incremental reader. Known and accepted
 * differences, left out: a lone \r (not a line end here), a text mixing
 * \n and \r\n (csv-parse
 * reads every line ending but the first kind it meets as data), the line
 * number of a record with a \r\n inside a quoted field (csv-parse counts it
 * as two lines, the shared reader as one), and '""#' and '"" "...'
 * (csv-parse: an empty field, then a comment or nothing; the shared reader:
 * a malformed field, the stricter answer).
 */
import { describe, expect, it } from 'vitest';
import {
  CSV_PROBLEM_WORDS,
  CsvFailure,
  CsvLineReader,
  readCsv,
  type CsvRead,
  type CsvRow,
} from '../../../../src-shared/csv/csv-reader';
import { csvParseOracle, type OracleRead } from '../../support/csv-parse-oracle';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';

type EngineRead = OracleRead;

/** The library's reading of the same text. */
function engine(text: string, delimiters: readonly string[] = [',']): EngineRead {
  return csvParseOracle(text, 'f.csv', delimiters);
}

/** The incremental reader fed `size` characters at a time. */
function chunked(text: string, size: number): CsvRead {
  const rows: CsvRow[] = [];
  const reader = new CsvLineReader((fields, line) => rows.push({ fields, line }));
  try {
    for (let at = 0; at < text.length; at += size) reader.push(text.slice(at, at + size));
    reader.end();
  } catch (e) {
    if (e instanceof CsvFailure) return { ok: false, problem: e.problem };
    throw e;
  }
  return { ok: true, rows };
}

const quotedCrlf = (text: string): boolean => /"[^"]*\r\n/.test(text);

function expectAgree(text: string, delimiters?: readonly string[]): void {
  const mine = readCsv(text, delimiters ? { delimiters } : {});
  const theirs = engine(text, delimiters);
  const what = JSON.stringify(text);
  if (mine.ok) {
    const fieldsOnly = (r: EngineRead) => (r.ok ? r.rows.map((x) => x.fields) : r);
    if (quotedCrlf(text)) expect(fieldsOnly(theirs), what).toEqual(fieldsOnly(mine));
    else expect(theirs, what).toEqual(mine);
    return;
  }
  expect(theirs.ok, what).toBe(false);
  // both refuse it, at the same line (a quote never closed: the shared reader names where it opened, csv-parse
  // roughly where the text ends); which quote problem csv-parse names after a closing quote varies with the field
  const message = 'message' in theirs ? theirs.message : '';
  const sameLine =
    message.startsWith(`f.csv: malformed CSV at line ${mine.problem.line}`) ||
    quotedCrlf(text) ||
    mine.problem.code === 'quote-not-closed';
  expect(sameLine, `${what}: ${message} vs ${mine.problem.message}`).toBe(true);
  expect(
    Object.values(CSV_PROBLEM_WORDS).some((w) => message.endsWith(w)),
    message,
  ).toBe(true);
}

describe('one CSV dialect on both sides', () => {
  it('agrees on hand-picked cases', () => {
    const cases = [
      '',
      'a,b\n#c,d\ne,f',
      '  #x,y\na',
      'a,#b\nc',
      'a, "b c" ,d',
      '" a ",b',
      'a,"b\nc",d\ne',
      '"a""b",c',
      'a"b,c',
      '"a"b,c',
      '"abc',
      'a,b\r\nc,d\r\n',
      '\n\n  \na\n,\n , \nb',
      '\uFEFFa,b\n1,2',
      '"a" ,b',
      'x,""',
      'a,\t"b"\t,c',
      'a,b #c',
      '"#a",b',
      'a\n"#b",c',
      ',x,y\nx,0,1\ny,1,0\n',
      'lat,lon\n48.85,2.35\n"48.86", 2.36\n',
    ];
    for (const t of cases) expectAgree(t);
    expect(readCsv('a,"b\r\nc",d\r\ne')).toEqual({
      ok: true,
      rows: [
        { fields: ['a', 'b\r\nc', 'd'], line: 2 },
        { fields: ['e'], line: 3 },
      ],
    });
    expect(readCsv('a,"b\nc",d\ne')).toEqual({
      ok: true,
      rows: [
        { fields: ['a', 'b\nc', 'd'], line: 2 },
        { fields: ['e'], line: 3 },
      ],
    });
    expect(readCsv('1,2\n"x"y')).toEqual({
      ok: false,
      problem: {
        code: 'closing-quote',
        line: 2,
        field: 1,
        message:
          'malformed CSV at line 2, field 1: a quoted field is followed by other characters before the delimiter',
      },
    });
  });

  it('agrees with several delimiters (the grid prior and trace editors)', () => {
    for (const t of ['a;b\tc,d', '1;2;3\n4\t5\t6', '"a;b";c', 't;v\n08:00;1.5\n']) expectAgree(t, [',', ';', '\t']);
    expect(readCsv('1;2\t3', { delimiters: [',', ';', '\t'] })).toEqual({
      ok: true,
      rows: [{ fields: ['1', '2', '3'], line: 1 }],
    });
  });

  it('agrees on 3,000 random texts made of the characters that matter', () => {
    const rnd = seededRandom(20261124);
    const alphabet = ['a', 'b', '1', ',', ',', '"', '"', 'NL', 'NL', ' ', '#', ';', '\t'];
    let compared = 0;
    for (let k = 0; k < 3000; k++) {
      // one line ending per text: csv-parse takes the first one it meets as the record delimiter
      const nl = k % 2 === 0 ? '\n' : '\r\n';
      const len = 1 + Math.floor(rnd() * 14);
      let t = '';
      for (let i = 0; i < len; i++) {
        const ch = alphabet[Math.floor(rnd() * alphabet.length)]!;
        t += ch === 'NL' ? nl : ch;
      }
      if (/""[ \t]*#/.test(t) || /""[ \t]+"/.test(t)) continue;
      expectAgree(t);
      expect(chunked(t, 1 + Math.floor(rnd() * 4)), JSON.stringify(t)).toEqual(readCsv(t));
      compared++;
    }
    expect(compared).toBeGreaterThan(2500);
  });

  it('stops after maxRows records', () => {
    expect(readCsv('h\n1\n2\n3\n', { maxRows: 2 })).toEqual({
      ok: true,
      rows: [
        { fields: ['h'], line: 1 },
        { fields: ['1'], line: 2 },
      ],
    });
  });
});
