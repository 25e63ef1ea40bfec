/** Number formatting shared by views (tables, badges, tooltips). */
export function fmt(v: number | null | undefined, digits = 4): string {
  if (v === null || v === undefined) return '—';
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-4) return v.toExponential(Math.max(1, digits - 1));
  return Number(v.toPrecision(digits)).toString();
}

export function fmtMs(ms: number): string {
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  // rounded before it is split, so that 239.6 s reads "4 min 0 s", never "3 min 60 s"
  if (s < 59.95) return `${s.toFixed(1)} s`;
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total - 3600 * h) / 60);
  const sec = total - 3600 * h - 60 * m;
  return h > 0 ? `${h} h ${m} min` : `${m} min ${sec} s`;
}

/**
 * A count for people: grouped digits up to a billion, then "≈ 4.72 × 10²¹" (exact digits of 8^24 mean nothing to a
 * reader).
 */
export function fmtCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) < 1e9) return n.toLocaleString('en-US');
  const e = Math.floor(Math.log10(Math.abs(n)));
  const m = n / 10 ** e;
  const sup = String(e).replace(/[0-9-]/g, (c) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(c)] ?? '⁻');
  return `≈ ${Number(m.toPrecision(3))} × 10${sup}`;
}
