import { seededRandom } from '../../src-shared/numeric/seeded-random';
import { readCsv, TABLE_DELIMITERS } from '../../src-shared/csv/csv-reader';
/**
 * Smart-meter traces (SPEC §1 databases V^u with d1 or d∞): load a CSV of
 * readings, quantise to `levels` values, and release a noisy trace. Each
 * reading gets truncated-geometric noise on 0..levels-1; independent noise
 * with eps' per reading is eps'·d1-private (composition), and since
 * d1 <= u·d∞ it is (u·eps')·d∞-private, so d∞ uses eps' = eps/u.
 */
interface Trace {
  raw: number[];
  /** Quantised levels 0..levels-1. */
  levels: number[];
  min: number;
  max: number;
  step: number;
}

/** How the time column reads: clock times (seconds since midnight), dates (ms since 1970), plain numbers. */
type TimeKind = 'clock' | 'date' | 'number';

/** A trace as read from its CSV: the readings, and (when the file has them) their times and unit. */
export interface TraceData {
  values: number[];
  /** One time per reading (seconds since midnight for clock times, ms since 1970 for dates). */
  times?: number[];
  timeKind?: TimeKind;
  /** Header of the time column (e.g. "time"). */
  timeLabel?: string;
  /** Unit of the readings (e.g. "W", "kWh"), from the value column's header. */
  unit?: string;
  /** Header of the value column (e.g. "watts"). */
  valueLabel?: string;
}

const MAX_READINGS = 10_000;

const UNIT_WORDS: Record<string, string> = {
  w: 'W',
  watt: 'W',
  watts: 'W',
  kw: 'kW',
  kilowatt: 'kW',
  kilowatts: 'kW',
  mw: 'MW',
  wh: 'Wh',
  kwh: 'kWh',
  mwh: 'MWh',
  a: 'A',
  amps: 'A',
  amperes: 'A',
  v: 'V',
  volts: 'V',
  va: 'VA',
  kva: 'kVA',
  l: 'L',
  litres: 'L',
  liters: 'L',
  m3: 'm³',
};

/** The unit named by a value column's header: "power (W)", "energy [kWh]", "consumption_kWh", "watts". */
export function unitOfHeader(header: string): string | undefined {
  const h = header.trim();
  const br = /[([]\s*([^)\]]+?)\s*[)\]]\s*$/.exec(h);
  if (br) return br[1]!;
  const words = h.split(/[\s_\-/]+/).filter(Boolean);
  for (const w of [words[words.length - 1], words[0]]) {
    const u = w && UNIT_WORDS[w.toLowerCase()];
    if (u) return u;
  }
  return undefined;
}

/**
 * The readings' axis title from the value column's header and its unit: "power (kW)" stays as it is (the header
 * names the unit already), "watts" with unit W reads "reading (W)", "load" with kW "load (kW)".
 */
export function readingAxisLabel(valueLabel: string | undefined, unit: string): string {
  const name = valueLabel?.trim() ?? '';
  if (!unit) return name || 'reading';
  // the unit in brackets already: "power (kW)", "energy [kWh]"
  if (/[([]\s*[^)\]]+?\s*[)\]]\s*$/.test(name) && unitOfHeader(name) === unit) return name;
  // a unit word in the name: "consumption_kWh" reads "consumption (kWh)", "watts" reads "reading (W)"
  const words = name.split(/[\s_\-/]+/).filter((w) => w && UNIT_WORDS[w.toLowerCase()] !== unit);
  return `${words.join(' ') || 'reading'} (${unit})`;
}

/** One time cell: "HH:MM[:SS]" (clock), an ISO date-time (date), or a number. */
function parseTimeCell(cell: string): { kind: TimeKind; t: number } | null {
  const c = /^(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$/.exec(cell);
  if (c) {
    const h = Number(c[1]);
    const m = Number(c[2]);
    const sec = c[3] === undefined ? 0 : Number(c[3]);
    if (h < 24 && m < 60 && sec < 61) return { kind: 'clock', t: h * 3600 + m * 60 + sec };
    return null;
  }
  if (cell !== '' && Number.isFinite(Number(cell))) return { kind: 'number', t: Number(cell) };
  if (/^\d{4}-\d{2}-\d{2}/.test(cell)) {
    const t = Date.parse(cell.replace(' ', 'T'));
    if (Number.isFinite(t)) return { kind: 'date', t };
  }
  return null;
}

/**
 * A trace CSV: one reading per line, or time,value (the time column and the
 * value column's header, with its unit, are kept). An optional header line;
 * '#' lines are comments. Clock times that pass midnight continue into the
 * next day, so times always increase.
 */
export function parseTraceCsv(text: string): ({ ok: true } & TraceData) | { ok: false; error: string } {
  const read = readCsv(text, { delimiters: TABLE_DELIMITERS });
  if (!read.ok) return { ok: false, error: read.problem.message };
  const rows = read.rows;
  const values: number[] = [];
  const times: number[] = [];
  let timeKind: TimeKind | undefined;
  let header: string[] | undefined;
  let withTime: boolean | undefined;
  for (let i = 0; i < rows.length; i++) {
    const { fields: parts, line } = rows[i]!;
    const cell = parts[parts.length - 1]!;
    const v = Number(cell);
    if (cell === '' || !Number.isFinite(v)) {
      if (i === 0) {
        header = parts;
        continue;
      }
      return { ok: false, error: `line ${line}: '${cell}' is not a number` };
    }
    if (values.length >= MAX_READINGS)
      return {
        ok: false,
        error: `more than ${MAX_READINGS} readings; at most ${MAX_READINGS} (aggregate the trace, e.g. to minutes)`,
      };
    values.push(v);
    if (withTime === undefined) withTime = parts.length >= 2;
    if (withTime) {
      if (parts.length < 2)
        return { ok: false, error: `line ${line}: no time before the reading (the other lines have one)` };
      const t = parseTimeCell(parts[0]!);
      if (!t)
        return {
          ok: false,
          error: `line ${line}: '${parts[0]}' is not a time (HH:MM:SS, a date such as 2024-01-31T08:00 or a number)`,
        };
      if (timeKind === undefined) timeKind = t.kind;
      else if (t.kind !== timeKind)
        return {
          ok: false,
          error: `line ${line}: '${parts[0]}' is a ${t.kind} time but the first line's is a ${timeKind} time`,
        };
      let tt = t.t;
      const prev = times[times.length - 1];
      if (prev !== undefined && timeKind === 'clock') while (tt < prev) tt += 86_400; // past midnight: the next day
      if (prev !== undefined && !(tt > prev))
        return { ok: false, error: `line ${line}: time '${parts[0]}' does not come after the previous reading's` };
      times.push(tt);
    }
  }
  if (values.length < 2) return { ok: false, error: 'a trace needs at least 2 readings' };
  const out: { ok: true } & TraceData = { ok: true, values };
  if (withTime && timeKind) {
    out.times = times;
    out.timeKind = timeKind;
    if (header && header.length >= 2 && header[0]) out.timeLabel = header[0];
  }
  const vh = header?.[header.length - 1];
  if (vh) {
    out.valueLabel = vh;
    const u = unitOfHeader(vh);
    if (u) out.unit = u;
  }
  return out;
}

/** Time of a reading as text on the axis: HH:MM(:SS) for clock times (day +n past midnight), a date, or the number. */
export function formatTime(t: number, kind: TimeKind | undefined, withSeconds = false): string {
  const p2 = (n: number): string => String(n).padStart(2, '0');
  if (kind === 'clock') {
    const day = Math.floor(t / 86_400);
    const s = t - 86_400 * day;
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = Math.round(s % 60);
    // the end of a day on an axis
    if (day > 0 && s === 0 && !withSeconds) return `24:00${day > 1 ? ` (+${day - 1}d)` : ''}`;
    return `${p2(h)}:${p2(m)}${withSeconds ? `:${p2(sec)}` : ''}${day ? ` (+${day}d)` : ''}`;
  }
  if (kind === 'date') {
    const d = new Date(t);
    return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}`;
  }
  return String(Number(t.toPrecision(6)));
}

/**
 * A trace kept in a project: the domain's description "trace:v1,v2,..."
 * (the old form, still read), followed by ";unit=U", ";value=LABEL",
 * ";tlabel=LABEL" and ";time=KIND:START+STEP" (evenly spaced times) or
 * ";time=KIND:t1,t2,..." (URI-encoded texts).
 */
export function encodeTrace(d: TraceData): string {
  let s = 'trace:' + d.values.join(',');
  if (d.unit) s += ';unit=' + encodeURIComponent(d.unit);
  if (d.valueLabel) s += ';value=' + encodeURIComponent(d.valueLabel);
  if (d.timeLabel) s += ';tlabel=' + encodeURIComponent(d.timeLabel);
  if (d.times && d.timeKind && d.times.length === d.values.length) {
    const t = d.times;
    const step = (t[t.length - 1]! - t[0]!) / (t.length - 1);
    const even = t.every((x, i) => Math.abs(x - (t[0]! + i * step)) <= 1e-9 * Math.max(1, Math.abs(x)));
    s += `;time=${d.timeKind}:` + (even ? `${t[0]}+${step}` : t.join(','));
  }
  return s;
}

export function decodeTrace(description: string | undefined): TraceData | null {
  if (!description?.startsWith('trace:')) return null;
  const [vals, ...rest] = description.slice(6).split(';');
  const values = vals!.split(',').map(Number).filter(Number.isFinite);
  const d: TraceData = { values };
  for (const part of rest) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq);
    const val = part.slice(eq + 1);
    if (key === 'unit') d.unit = decodeURIComponent(val);
    else if (key === 'value') d.valueLabel = decodeURIComponent(val);
    else if (key === 'tlabel') d.timeLabel = decodeURIComponent(val);
    else if (key === 'time') {
      const m = /^(clock|date|number):(.*)$/.exec(val);
      if (!m) continue;
      const body = m[2]!;
      const even = /^([-+0-9.e]+)\+([-+0-9.e]+)$/.exec(body);
      const times = even ? values.map((_, i) => Number(even[1]) + i * Number(even[2])) : body.split(',').map(Number);
      if (times.length === values.length && times.every(Number.isFinite)) {
        d.times = times;
        d.timeKind = m[1] as TimeKind;
      }
    }
  }
  return d;
}

export function quantise(raw: number[], levels: number): Trace {
  if (!Number.isInteger(levels) || levels < 2) throw new Error('levels must be a whole number ≥ 2');
  let min = Infinity;
  let max = -Infinity;
  for (const x of raw) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  const step = max > min ? (max - min) / (levels - 1) : 1;
  return {
    raw,
    min,
    max,
    step,
    levels: raw.map((x) => Math.max(0, Math.min(levels - 1, Math.round((x - min) / step)))),
  };
}

/** Per-reading epsilon for the chosen metric (see the header comment). */
export function perReadingEpsilon(eps: number, readings: number, metric: 'd1' | 'dinf'): number {
  return metric === 'd1' ? eps : eps / readings;
}

/** Deterministic PRNG (mulberry32, the engine's) so a noisy signature is reproducible. */
const rng = seededRandom;

/** Sample a report for each level from the channel rows (row-major levels x levels). */
export function sampleNoisy(levels: number[], channel: ArrayLike<number>, n: number, seed = 1): number[] {
  const rand = rng(seed);
  return levels.map((x) => {
    let u = rand();
    for (let y = 0; y < n; y++) {
      u -= channel[x * n + y]!;
      if (u <= 0) return y;
    }
    return n - 1;
  });
}

/** Quantisation levels the editor accepts; the reason in plain words otherwise (0 or 1 level would release nothing). */
export const MAX_LEVELS = 64;
export function levelsProblem(levels: number): string | null {
  if (!Number.isFinite(levels) || !Number.isInteger(levels))
    return `Quantisation levels must be a whole number from 2 to ${MAX_LEVELS}.`;
  if (levels < 2)
    return `${levels} level${levels === 1 ? '' : 's'}: a trace needs at least 2 quantisation levels (with ${levels === 1 ? 'one level every reading is the same value' : 'no level there is nothing to release'}). Enter a number from 2 to ${MAX_LEVELS}.`;
  if (levels > MAX_LEVELS) return `${levels} levels: at most ${MAX_LEVELS} quantisation levels.`;
  return null;
}

/** Mean absolute and root-mean-square error of a released trace against the true readings (same unit). */
export function errorFigures(
  truth: ArrayLike<number>,
  released: ArrayLike<number>,
): { mae: number; rmse: number; n: number } {
  const n = truth.length;
  if (released.length !== n || n === 0)
    throw new Error(`error figures need two traces of the same length (${n} and ${released.length})`);
  let abs = 0;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const e = released[i]! - truth[i]!;
    abs += Math.abs(e);
    sq += e * e;
  }
  return { mae: abs / n, rmse: Math.sqrt(sq / n), n };
}

/**
 * Mean absolute error of a release that ignores the trace (each reading a uniformly random level): the "pure noise"
 * reference.
 */
export function blindMae(truth: ArrayLike<number>, t: { min: number; step: number }, levels: number): number {
  let s = 0;
  for (let i = 0; i < truth.length; i++) {
    let e = 0;
    for (let k = 0; k < levels; k++) e += Math.abs(t.min + k * t.step - truth[i]!);
    s += e / levels;
  }
  return s / truth.length;
}

/**
 * Is the per-reading eps too small for the release to carry the trace? With
 * eps' per level step, two readings at opposite ends of the v levels have
 * output distributions within a factor e^(eps' (v-1)); below e^1 the
 * released reading says almost nothing about the true one. `needed` is the
 * eps (as entered, before splitting over the readings) that reaches e^1.
 */
export function noiseWarning(
  eps: number,
  readings: number,
  levels: number,
  metric: 'd1' | 'dinf',
): { perReading: number; spread: number; needed: number } | null {
  const perReading = perReadingEpsilon(eps, readings, metric);
  const spread = perReading * (levels - 1);
  if (spread >= 1) return null;
  const needed = (metric === 'dinf' ? readings : 1) / (levels - 1);
  return { perReading, spread, needed };
}

/**
 * Min/max envelope of readings lo..hi-1 in `buckets` buckets of consecutive
 * readings: per bucket its first time, min, max and mean. A long trace
 * (8,640 readings on a few hundred pixels) reads as a band around its mean
 * line instead of a solid block of overdrawn steps; zoomed in far enough
 * (at most `buckets` readings), every reading is its own bucket.
 */
export function envelope(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  lo: number,
  hi: number,
  buckets: number,
): { x: Float64Array; min: Float64Array; max: Float64Array; mean: Float64Array } {
  lo = Math.max(0, Math.floor(lo));
  hi = Math.min(y.length, Math.ceil(hi));
  const n = Math.max(0, hi - lo);
  const b = Math.max(1, Math.min(buckets, n));
  const out = { x: new Float64Array(b), min: new Float64Array(b), max: new Float64Array(b), mean: new Float64Array(b) };
  if (n === 0)
    return { x: new Float64Array(0), min: new Float64Array(0), max: new Float64Array(0), mean: new Float64Array(0) };
  for (let k = 0; k < b; k++) {
    const a = lo + Math.floor((k * n) / b);
    const e = lo + Math.floor(((k + 1) * n) / b);
    let mn = Infinity;
    let mx = -Infinity;
    let s = 0;
    for (let i = a; i < e; i++) {
      const v = y[i]!;
      if (v < mn) mn = v;
      if (v > mx) mx = v;
      s += v;
    }
    out.x[k] = x[a]!;
    out.min[k] = mn;
    out.max[k] = mx;
    out.mean[k] = s / (e - a);
  }
  return out;
}
