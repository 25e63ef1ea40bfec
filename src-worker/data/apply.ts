/**
 * Apply: a secrets CSV in, a released CSV out (releaseCsv), streaming. Each data row is mapped to a secret (a point
 * binned into a grid cell, or a label matched against the domain: secretsReader; whether line 1 is a header:
 * decideHeader), and its output is drawn exactly from the channel's row by ChannelSampler (channel-sampler.ts).
 */
import { MechError, invalid } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import { type CsvRow } from '../../src-shared/csv/csv-reader';
import { type CellBinning, checkLatLon, coordinateColumns, type LocalProjection, numberField } from './points';
import { checkCancelled } from '../numeric/cancel';
import { ChannelSampler, RELEASE_WARNING, type SamplerOptions, type SamplerStats } from './channel-sampler';

/**
 * How secrets are written in a secrets CSV, decided from its header row:
 *  - `x,y` or `lat,lon` columns: points, mapped to grid cells by the binning
 *    of the prior (points.ts); a point outside the grid is an error;
 *  - otherwise the first column (any header, e.g. `secret`, `cell`, `value`)
 *    holds a cell label exactly as the domain writes it (`(2,3)` on grids —
 *    quoted, or unquoted when the file has one column —, `17` on lines) or, when it is not a label, a number equal to a
 *    numeric label (`17.0` for `17`).
 * Every row maps to exactly one secret index or is a MechError naming its line.
 */
export interface SecretsReader {
  mode: 'points' | 'labels';
  /** The secret index of a data row. */
  secretOf(row: CsvRow): number;
}

export interface PointsMapping {
  binning: CellBinning;
  /** Needed when the file has lat,lon: the projection of the grid. */
  projection?: LocalProjection | null;
}

/** What secrets are matched against: a domain, or only the labels of a channel's rows. */
export type SecretsDomain = Pick<Domain, 'n' | 'spec' | 'label'>;

/** The channel's row labels as the secrets' domain (apply with a channel and no domain). */
export function channelLabelsDomain(channel: RowSource): SecretsDomain {
  return { n: channel.rows, spec: "the channel's rows", label: (i) => channel.rowLabel(i) };
}

/** `what` names a labels column's value in messages: the secret (apply), or the released value of an audit's sample. */
export function secretsReader(
  header: CsvRow,
  domain: SecretsDomain,
  source: string,
  points?: PointsMapping,
  what = 'secret',
): SecretsReader {
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const hasPoint =
    (names.includes('x') && names.includes('y')) ||
    (names.some((s) => s === 'lat' || s === 'latitude') &&
      names.some((s) => s === 'lon' || s === 'lng' || s === 'long' || s === 'longitude'));
  if (hasPoint) {
    const { units, ia, ib } = coordinateColumns(header, source);
    if (!points)
      invalid(
        `${source}: the secrets are points (${units === 'km' ? 'x,y' : 'lat,lon'}) but no grid binning was given (import the prior from points first: --prior points:FILE.csv in mechstudio apply)`,
      );
    const bin = points.binning;
    if (bin.rows * bin.cols !== domain.n)
      throw new MechError(
        'invalid-input',
        `${source}: the points grid has ${bin.rows * bin.cols} cells but the domain ${domain.spec} has ${domain.n} points`,
      );
    if (units === 'degrees' && !points.projection)
      invalid(`${source}: the secrets are lat,lon but the grid was built from x,y in km`);
    if (units === 'km' && points.projection)
      invalid(`${source}: the secrets are x,y in km but the grid was built from lat,lon; write them as lat,lon`);
    const proj = points.projection ?? null;
    return {
      mode: 'points',
      secretOf(row) {
        const a = numberField(row, ia, units === 'km' ? 'x' : 'lon', source);
        const b = numberField(row, ib, units === 'km' ? 'y' : 'lat', source);
        let x = a;
        let y = b;
        if (proj) {
          checkLatLon(b, a, row.line, source);
          [x, y] = proj.project(b, a);
        }
        const cell = bin.cellOfKm(x, y);
        // The message never quotes the secret itself: error text may end up in logs.
        if (cell < 0)
          invalid(
            `${source}, line ${row.line}: the point is outside the grid (nothing is dropped: fix or remove the row)`,
            { line: row.line },
          );
        return cell;
      },
    };
  }
  if (domain.n > 50_000_000) throw new MechError('too-large', `${source}: cannot index ${domain.n} labels`);
  const byLabel = new Map<string, number>();
  const byValue = new Map<number, number>();
  for (let i = 0; i < domain.n; i++) {
    const l = domain.label(i);
    byLabel.set(l, i);
    if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(l)) {
      const v = Number(l);
      if (Number.isFinite(v) && !byValue.has(v)) byValue.set(v, i);
    }
  }
  const oneColumn = header.fields.length === 1;
  return {
    mode: 'labels',
    secretOf(row) {
      // One-column files may hold grid labels unquoted: (2,3) reads as two fields '(2' and '3)'.
      const t = (oneColumn ? row.fields.join(',') : (row.fields[0] ?? '')).trim();
      if (t === '') invalid(`${source}, line ${row.line}: empty ${what}`, { line: row.line });
      const i = byLabel.get(t);
      if (i !== undefined) return i;
      if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) {
        const j = byValue.get(Number(t));
        if (j !== undefined) return j;
      }
      // The message never quotes the secret itself: error text may end up in logs.
      invalid(
        `${source}, line ${row.line}: the ${what} is not a point of ${domain.spec} (nothing is dropped: fix or remove the row)`,
        { line: row.line },
      );
    },
  };
}

/** Whether line 1 of a secrets (or points) CSV is a header: 'yes', 'no', or decided by its content. */
type HeaderChoice = 'yes' | 'no' | 'auto';

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * The reader of a secrets CSV and whether its first record is a header.
 * By content: line 1 is a header only when it is not a secret, that is
 * neither a label or value of the domain nor (with a points grid) a row of
 * numbers. A headerless points file has its columns in the grid's units
 * (x,y in km, or lat,lon). Line 1 that is a word label of the domain could
 * be either: that is refused with one message asking for --header.
 */
export function decideHeader(
  first: CsvRow,
  domain: SecretsDomain,
  source: string,
  choice: HeaderChoice,
  points?: PointsMapping,
): { reader: SecretsReader; header: boolean } {
  const headerless = (): SecretsReader => {
    const numeric = first.fields.length >= 2 && first.fields.slice(0, 2).every((f) => NUMBER.test(f.trim()));
    const names =
      points && numeric
        ? points.projection
          ? ['lat', 'lon']
          : ['x', 'y']
        : first.fields.map((_, i) => (i === 0 ? 'secret' : `c${i}`));
    return secretsReader({ fields: names, line: 0 }, domain, source, points);
  };
  if (choice === 'yes') return { reader: secretsReader(first, domain, source, points), header: true };
  if (choice === 'no') return { reader: headerless(), header: false };
  const asHeader = secretsReader(first, domain, source, points);
  if (asHeader.mode === 'points') return { reader: asHeader, header: true };
  // Read as data, line 1 gives the same labels reader unless it is a row of point coordinates.
  const numericPoints =
    points !== undefined && first.fields.length >= 2 && first.fields.slice(0, 2).every((f) => NUMBER.test(f.trim()));
  const reader = numericPoints ? headerless() : asHeader;
  // Numbers and (r,c) tuples are never header names: such a line 1 is a secret (or an error naming the line).
  const text = (first.fields.length === 1 ? first.fields.join(',') : (first.fields[0] ?? '')).trim();
  if (reader.mode === 'points' || NUMBER.test(text) || /^\(.*\)$/.test(text)) {
    reader.secretOf(first);
    return { reader, header: false };
  }
  let secret = true;
  try {
    reader.secretOf(first);
  } catch (e) {
    if (!(e instanceof MechError)) throw e;
    secret = false;
  }
  if (!secret) return { reader: asHeader, header: true };
  invalid(
    `${source}: line 1 is a label of ${domain.spec} and could also be a header; say --header yes or --header no`,
    { line: first.line },
  );
}

export { readCsvStream } from '../metric/read-csv';

interface ReleaseOptions extends SamplerOptions {
  /** For point secrets: the grid binning (and projection for lat,lon) of the prior. */
  points?: PointsMapping;
  /** Checked every 4096 rows. */
  signal?: AbortSignal;
  onProgress?: (rows: number) => void;
  /** Told once, after the first line: how the secrets are written. */
  onMode?: (mode: SecretsReader['mode']) => void;
  /** Whether line 1 is a header (default: decided by its content, see decideHeader). */
  header?: HeaderChoice;
}

interface ReleaseResult {
  rows: number;
  /** Whether line 1 was read as a header (else it was released as the first secret). */
  header: boolean;
  forRelease: boolean;
  stats: SamplerStats;
  timeMs: number;
}

/**
 * Secrets CSV in, released CSV out, streaming: reads the header, then each
 * row, maps it to a secret, samples an output and writes one line. The
 * released file holds only the outputs (never the secrets), one per input
 * row, in order: a header `released` (the output's label) plus, for point
 * secrets, the released cell's centre in the input's units (x,y km or
 * lat,lon). A seeded release starts with the comment line
 * `# RELEASE_WARNING` (CSV readers here skip '#' lines). An input row
 * outside the domain stops the release with a MechError naming its line
 * (rows before it have been written; the caller should delete the partial
 * file).
 */
export async function releaseCsv(
  input: AsyncIterable<CsvRow>,
  channel: RowSource,
  domain: SecretsDomain,
  write: (text: string) => void | Promise<void>,
  source: string,
  opts: ReleaseOptions = {},
): Promise<ReleaseResult> {
  const t0 = performance.now();
  if (channel.rows !== domain.n)
    invalid(`the channel has ${channel.rows} rows but the domain ${domain.spec} has ${domain.n} points`);
  const sampler = new ChannelSampler(channel, opts);
  let reader: SecretsReader | null = null;
  let header = true;
  let centre: ((cell: number) => string) | null = null;
  let rows = 0;
  let pending: string[] = [];
  // Secrets are sampled a block at a time (grouped by secret, see sampleBlock) and written in input order.
  const BLOCK = 1 << 16;
  const block = new Int32Array(BLOCK);
  const outs = new Int32Array(BLOCK);
  let k = 0;
  const emit = async (): Promise<void> => {
    if (k === 0) return;
    sampler.sampleBlock(block, k, outs);
    for (let i = 0; i < k; i++) {
      const o = outs[i]!;
      const label = csvField(channel.colLabel(o));
      pending.push(centre ? `${label},${centre(o)}\n` : `${label}\n`);
      rows++;
      if ((rows & 4095) === 0) {
        checkCancelled(opts.signal, 'release cancelled');
        await flush();
        opts.onProgress?.(rows);
      }
    }
    k = 0;
  };
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    await write(text);
  };
  for await (const row of input) {
    if (reader === null) {
      const d = decideHeader(row, domain, source, opts.header ?? 'auto', opts.points);
      reader = d.reader;
      header = d.header;
      opts.onMode?.(reader.mode);
      let head = '';
      if (!sampler.forRelease) head += `# ${RELEASE_WARNING}\n`;
      if (reader.mode === 'points' && opts.points && channel.cols === domain.n) {
        const { binning: b, projection: p } = opts.points;
        head += p ? 'released,lat,lon\n' : 'released,x,y\n';
        centre = (cell) => {
          const r = Math.floor(cell / b.cols);
          const c = cell - r * b.cols;
          const x = b.xMin + (c + 0.5) * b.cellKm;
          const y = b.yMax - (r + 0.5) * b.cellKm;
          if (p) {
            const [lat, lon] = p.unproject(x, y);
            return `${lat},${lon}`;
          }
          return `${x},${y}`;
        };
      } else head += 'released\n';
      pending.push(head);
      if (header) continue;
    }
    block[k++] = reader.secretOf(row);
    if (k === BLOCK) await emit();
  }
  if (reader === null) invalid(`${source}: the file is empty; it needs one secret per row`);
  await emit();
  await flush();
  return { rows, header, forRelease: sampler.forRelease, stats: sampler.stats(), timeMs: performance.now() - t0 };
}

/** Quote a CSV field when it holds a comma, quote or line break. */
export function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
