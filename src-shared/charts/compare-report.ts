/**
 * A compare result rendered in ONE place: the table shown
 * in the app (with units), the CSV export (numbers, units in the header) and
 * the chart drawn in the app and to PNG (chart-config.ts). Pure data: the
 * renderer and the Node side both import it.
 */
import { type ChartSpec, type CompareResult, type CompareRow } from '../protocol/index';
import { SWEEP_COLORS } from './sweep-charts';
import { compareNotes, compareRowNotes, sig4 } from './compare-words';

export { sig4 };

interface CompareColumn {
  key: keyof CompareRow | 'label';
  /** Column title with its unit. */
  title: string;
  /** What the figure is, in one sentence (tooltip). */
  help: string;
}

/** The columns, in order, with units (`unit` is the result's distance unit, 'km' on grids). */
export function compareColumns(unit: string): CompareColumn[] {
  const u = unit === 'd' ? 'distance units' : unit;
  return [
    {
      key: 'label',
      title: 'mechanism',
      help: 'the construction (and whether its outputs are remapped for the chosen loss)',
    },
    {
      key: 'expectedDistance',
      title: `expected distance (${u})`,
      help: 'mean distance between the true and the reported location, under the prior',
    },
    {
      key: 'expectedDistanceRemapped',
      title: `with remap (${u})`,
      help: 'mean distance after the best remap of the reports for the distance loss (post-processing: privacy unchanged)',
    },
    {
      key: 'pTrue',
      title: 'P(true cell reported)',
      help: 'probability that the reported cell is the true one, under the prior',
    },
    {
      key: 'leakageBits',
      title: 'leakage (bits)',
      help: 'min-entropy leakage: how much a one-guess attacker gains, log2 of the posterior over the prior vulnerability',
    },
    {
      key: 'effectiveEpsilon',
      title: `effective ε per ${unit === 'd' ? 'unit' : unit}`,
      help: 'largest ln(C[x][y] / C[x′][y]) / d(x, x′) of the channel as stored',
    },
    {
      key: 'betterThanPlanarLaplacePct',
      title: 'vs planar Laplace',
      help: 'how much smaller the expected distance is than planar Laplace’s at the same ε and prior',
    },
  ];
}

/** "x% better than planar Laplace" in words (or worse, or the same). */
function betterText(pct: number | null): string {
  if (pct === null) return '—';
  if (Math.abs(pct) < 0.05) return 'same as planar Laplace';
  return pct > 0 ? `${pct.toFixed(1)}% better` : `${(-pct).toFixed(1)}% worse`;
}

/** The table as displayed: one string per cell, with units. */
export function compareTableText(r: CompareResult): { header: string[]; rows: string[][]; notes: string[] } {
  const cols = compareColumns(r.unit);
  const u = r.unit === 'd' ? '' : ` ${r.unit}`;
  const rows = r.rows.map((row) =>
    cols.map((c) => {
      if (c.key === 'label') return row.label;
      if (!row.exists) return c.key === 'expectedDistance' ? 'does not exist' : '—';
      const v = row[c.key] as number | null;
      if (v === null) return '—';
      switch (c.key) {
        case 'expectedDistance':
        case 'expectedDistanceRemapped':
          return `${sig4(v)}${u}`;
        case 'pTrue':
          return `${(v * 100).toFixed(1)}%`;
        case 'leakageBits':
          return `${sig4(v)} bits`;
        case 'effectiveEpsilon':
          return `${sig4(v)} / ${r.unit === 'd' ? 'unit' : r.unit}`;
        case 'betterThanPlanarLaplacePct':
          return betterText(v);
        default:
          return sig4(v);
      }
    }),
  );
  const notes = compareNotes(r).map((w) => w.text);
  return { header: cols.map((c) => c.title), rows, notes };
}

function csvCell(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV export: full-precision numbers, units in the header, one line per mechanism. */
export function compareCsv(r: CompareResult): string {
  const d = r.unit === 'd' ? 'd' : r.unit;
  const header = [
    'mechanism',
    'kind',
    'remap',
    'exists',
    `expected_distance_${d}`,
    `expected_distance_remapped_${d}`,
    'p_true_cell',
    'leakage_bits',
    `effective_eps_per_${d}`,
    `guaranteed_eps_per_${d}`,
    'better_than_planar_laplace_pct',
    'note',
  ];
  const lines = [
    `# compare: ${r.domain}, eps ${r.epsilon} per ${d}, loss ${r.loss}; planar Laplace baseline ${r.baseline ?? 'none'} ${d}`,
    header.join(','),
    ...r.rows.map((x) =>
      [
        x.label,
        x.kind,
        x.remap,
        x.exists,
        x.expectedDistance,
        x.expectedDistanceRemapped,
        x.pTrue,
        x.leakageBits,
        x.effectiveEpsilon,
        x.guaranteedEpsilon,
        x.betterThanPlanarLaplacePct,
        compareRowNotes(x, r.unit, r.loss)
          .map((w) => w.text)
          .join('; ') || null,
      ]
        .map(csvCell)
        .join(','),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** The chart (app and PNG): expected distance per mechanism, at face value and after the remap. */
export function compareChart(r: CompareResult, id = 'compare'): ChartSpec {
  const u = r.unit === 'd' ? 'distance' : r.unit;
  const cats = r.rows.map(
    (x) =>
      `${x.label}${x.betterThanPlanarLaplacePct !== null && x.exists ? ` (${betterText(x.betterThanPlanarLaplacePct)})` : ''}`,
  );
  const idx = r.rows.map((_, k) => k);
  return {
    id,
    title: `Expected distance to the true location, ε = ${Number(r.epsilon.toPrecision(4))} per ${r.unit === 'd' ? 'unit' : r.unit} on ${r.domain}`,
    type: 'bar',
    xLabel: 'mechanism',
    yLabel: `expected distance (${u})`,
    categories: cats,
    yMin: 0,
    series: [
      {
        label: 'as released',
        x: idx,
        y: r.rows.map((x) => (x.exists ? x.expectedDistance : null)),
        color: SWEEP_COLORS[0],
      },
      {
        label: 'with the optimal remap',
        x: idx,
        y: r.rows.map((x) => (x.exists ? x.expectedDistanceRemapped : null)),
        color: SWEEP_COLORS[1],
      },
    ],
    notes: compareTableText(r).notes.slice(0, 4),
  };
}
