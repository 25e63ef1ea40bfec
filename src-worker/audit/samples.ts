/**
 * Samples of a mechanism, (secret, released) per row, read into index arrays
 * with the secrets reader of `apply` (src-worker/data/apply.ts: labels or
 * values of the domain; points binned on the prior's grid).
 *
 * Columns, by header: `secret,released` (labels or values of the domain, in
 * any column order, other columns ignored), or points for both,
 * `secret_x,secret_y,released_x,released_y` (km) or
 * `secret_lat,secret_lon,released_lat,released_lon` (degrees), binned on the
 * `points` grid. Without a header (line 1 is a sample: a label or value of
 * the domain) the first column is the secret and the second the released
 * output. Every row maps to two indices or is a MechError naming its line.
 */
import { MechError, invalid } from '../../src-shared/errors';
import type { CsvRow } from '../../src-shared/csv/csv-reader';
import { checkCancelled } from '../numeric/cancel';
import { type PointsMapping, type SecretsDomain, type SecretsReader, secretsReader } from '../data/apply';

interface SampleArrays {
  secrets: Int32Array;
  outputs: Int32Array;
  mode: 'labels' | 'points';
}

/** Most samples an audit reads (two 32-bit indices each: 1 GiB). */
const MAX_AUDIT_SAMPLES = 1 << 27;

interface PairReader {
  mode: 'labels' | 'points';
  header: boolean;
  read(row: CsvRow): [number, number];
}

/** A one-column view of a row (the secrets reader reads its first column, or the whole row when it has one). */
const column = (row: CsvRow, i: number, source: string): CsvRow => {
  const f = row.fields[i];
  if (f === undefined)
    invalid(
      `${source}, line ${row.line}: a sample needs a secret and a released column (the row has ${row.fields.length} fields)`,
      { line: row.line },
    );
  return { fields: [f], line: row.line };
};

/** Whether a one-column row reads as a secret of the domain. */
function isSecret(reader: SecretsReader, row: CsvRow): boolean {
  try {
    reader.secretOf(row);
    return true;
  } catch (e) {
    if (e instanceof MechError) return false;
    throw e;
  }
}

/** The reader of a samples CSV from its first record (see the module comment). */
function pairReader(first: CsvRow, domain: SecretsDomain, source: string, points?: PointsMapping): PairReader {
  const names = first.fields.map((f) => f.trim().toLowerCase());
  const prefixed = (prefix: string): CsvRow => ({
    fields: names.map((n) => (n.startsWith(prefix) ? n.slice(prefix.length) : `-${n}`)),
    line: first.line,
  });
  if (names.some((n) => n.startsWith('secret_')) && names.some((n) => n.startsWith('released_'))) {
    const s = secretsReader(prefixed('secret_'), domain, `${source} (secret)`, points);
    const r = secretsReader(prefixed('released_'), domain, `${source} (released)`, points);
    if (s.mode !== 'points' || r.mode !== 'points')
      invalid(
        `${source}: point samples need secret_x,secret_y,released_x,released_y (km) or secret_lat,secret_lon,released_lat,released_lon`,
      );
    return { mode: 'points', header: true, read: (row) => [s.secretOf(row), r.secretOf(row)] };
  }
  const is = names.indexOf('secret');
  const ir = names.indexOf('released');
  const labels = secretsReader({ fields: ['secret'], line: first.line }, domain, source);
  // the released column read by the same rules, its errors naming the released value (never the secret)
  const released = secretsReader(
    { fields: ['released'], line: first.line },
    domain,
    source,
    undefined,
    'released value',
  );
  if (is >= 0 && ir >= 0)
    return {
      mode: 'labels',
      header: true,
      read: (row) => [labels.secretOf(column(row, is, source)), released.secretOf(column(row, ir, source))],
    };
  // No header: line 1 must be a sample (a label or value of the domain is never a header name).
  const read = (row: CsvRow): [number, number] => [
    labels.secretOf(column(row, 0, source)),
    released.secretOf(column(row, 1, source)),
  ];
  try {
    read(first);
  } catch (e) {
    if (!(e instanceof MechError)) throw e;
    // a secret then a value: line 1 is a sample whose released value is wrong, and the error says so
    if (first.fields.length >= 2 && isSecret(labels, column(first, 0, source))) throw e;
    invalid(
      `${source}: line 1 is neither the header secret,released (or secret_x,secret_y,released_x,released_y) nor a sample of ${domain.spec}`,
    );
  }
  return { mode: 'labels', header: false, read };
}

/** Read every sample of a CSV (records from readCsvRows or readCsvStream) into index arrays. */
export async function readSamples(
  rows: Iterable<CsvRow> | AsyncIterable<CsvRow>,
  domain: SecretsDomain,
  source: string,
  opts: { points?: PointsMapping; signal?: AbortSignal } = {},
): Promise<SampleArrays> {
  let reader: PairReader | null = null;
  let s = new Int32Array(1024);
  let o = new Int32Array(1024);
  let k = 0;
  for await (const row of rows) {
    if (reader === null) {
      reader = pairReader(row, domain, source, opts.points);
      if (reader.header) continue;
    }
    if ((k & 65535) === 65535) checkCancelled(opts.signal, 'audit cancelled');
    if (k === MAX_AUDIT_SAMPLES)
      throw new MechError('too-large', `${source}: more than ${MAX_AUDIT_SAMPLES} samples; audit a sample of the log`);
    if (k === s.length) {
      const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      s = grow(s);
      o = grow(o);
    }
    const [a, b] = reader.read(row);
    s[k] = a;
    o[k] = b;
    k++;
  }
  if (reader === null || k === 0)
    invalid(`${source}: no samples; the file needs a header secret,released and one row per sample`);
  return { secrets: s.slice(0, k), outputs: o.slice(0, k), mode: reader.mode };
}
