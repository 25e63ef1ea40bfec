/** Each analysis result as a flat table (for its CSV file and summary.md). */
import type { AuditResult, JobResult, MeasureResult } from '../protocol/index';
import { compareColumns } from './compare-report';
import { CAPACITY_CSV_HEADER } from '../explorer/capacity-table';
import { capacityNoteWords } from './note-words';

interface Table {
  header: string[];
  rows: (string | number | boolean | null)[][];
}

/** The figures every measure reports, in the order the table and the CLI's --json give them. */
export const MEASURE_FIGURES = [
  'vulnerability',
  'posteriorVulnerability',
  'leakage',
  'utility',
  'multiplicativeCapacity',
  'additiveCapacity',
] as const satisfies readonly (keyof MeasureResult)[];

function keyValue(obj: Record<string, unknown>, keys: string[]): Table {
  return {
    header: ['quantity', 'value'],
    rows: keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k] as string | number | boolean | null]),
  };
}

export function resultTable(r: JobResult): Table {
  switch (r.type) {
    case 'mechanism': {
      const t = keyValue(r, [
        'kind',
        'domain',
        'epsilon',
        'exists',
        'rows',
        'cols',
        'utility',
        'leakage',
        'expectedLoss',
        'effectiveEpsilon',
        'guaranteedEpsilon',
        'minZ',
        'minZAt',
      ]);
      // A remapped mechanism's losses before and after.
      if (r.remap)
        t.rows.push(
          ['originalLoss', r.remap.originalLoss],
          ['remappedLoss', r.remap.remappedLoss],
          ['improvement', r.remap.improvement],
          ['lpLowerBound', r.remap.lpLowerBound],
        );
      return t;
    }
    case 'measure':
      return keyValue(r, [
        'rows',
        'cols',
        ...MEASURE_FIGURES,
        'minCapacity',
        'expectedLoss',
        'qualityLoss',
        'effectiveEpsilon',
      ]);
    case 'check':
      return {
        header: ['x', 'xp', 'y', 'ratio'],
        rows: r.violations.map((v) => [v.x, v.xp, v.y, v.ratio]),
      };
    case 'capacity':
      return keyValue(r, ['domain', 'epsilon', 'multiplicative', 'additive']);
    case 'regular': {
      const t = keyValue(r, ['domain', 'epsilon', 'regular', 'utilityBound', 'leakageBound']);
      r.mu?.forEach((m, i) => t.rows.push([`mu[${i}]`, m]));
      return t;
    }
    case 'threshold':
      return keyValue(r, ['domain', 'epsilon', 'from', 'to', 'step']);
    case 'vertices':
      return {
        header: ['vertex', ...(r.list?.[0]?.map((_, i) => `p${i}`) ?? [])],
        rows: (r.list ?? []).map((v, i) => [i, ...v]),
      };
    case 'sweep': {
      const header = ['epsilon'];
      for (const s of r.series) {
        header.push(`${s.kind} utility`, `${s.kind} leakage`);
        if (s.expectedLoss) header.push(`${s.kind} expected loss`);
      }
      header.push('utility bound', 'leakage bound');
      const rows = r.epsilons.map((e, k) => {
        const row: (number | null)[] = [e];
        for (const s of r.series) {
          row.push(s.utility[k] ?? null, s.leakage[k] ?? null);
          if (s.expectedLoss) row.push(s.expectedLoss[k] ?? null);
        }
        row.push(r.bounds.utility[k] ?? null, r.bounds.leakage[k] ?? null);
        return row;
      });
      return { header, rows };
    }
    case 'case-study':
      return keyValue(r.numbers, Object.keys(r.numbers));
    case 'rows':
      return r.data
        ? {
            header: ['secret', ...(r.colLabels ?? [])],
            rows: r.data.map((row, k) => [r.rowLabels?.[k] ?? String(r.indices?.[k] ?? k), ...row]),
          }
        : keyValue(r, ['rows', 'cols']);
    case 'run-project':
      return { header: ['id', 'ok'], rows: [...r.mechanisms, ...r.analyses].map((i) => [i.id, i.ok]) };
    case 'apply':
      return keyValue(r, ['domain', 'rows', 'forRelease', 'mode', 'outputs', 'csvPath']);
    case 'compare': {
      const cols = compareColumns(r.unit);
      return {
        header: cols.map((c) => c.title),
        rows: r.rows.map((x) =>
          cols.map((c) => (c.key === 'label' ? x.label : ((x[c.key] as number | null | undefined) ?? null))),
        ),
      };
    }
    case 'explorer':
      return {
        header: [...CAPACITY_CSV_HEADER],
        rows: (r.capacityRows ?? []).map((x) => [
          x.domain,
          x.size,
          x.vertices,
          x.kernels,
          x.multiplicative,
          x.additive,
          x.source,
          x.note === undefined ? null : capacityNoteWords(x.note),
        ]),
      };
    case 'audit':
      return auditTable(r);
  }
}

/** An audit result as a flat table (its CSV file): every test made, best first, so the witness is the first row. */
function auditTable(r: AuditResult): Table {
  return {
    header: [
      'secret a',
      'secret b',
      'distance',
      'event',
      'count a',
      'samples a',
      'count b',
      'samples b',
      'lower P(E|a)',
      'upper P(E|b)',
      'eps bound',
    ],
    rows: r.tested.map((t) => [
      t.secrets[0],
      t.secrets[1],
      t.distance,
      t.event.join(' '),
      t.countA,
      t.samplesA,
      t.countB,
      t.samplesB,
      t.lowerA,
      t.upperB,
      t.bound,
    ]),
  };
}

function cell(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function tableToCsv(t: Table): string {
  return [t.header.map(cell).join(','), ...t.rows.map((r) => r.map(cell).join(','))].join('\n') + '\n';
}

/** Short human rendering of a number. */
export function fmt(v: number | null | undefined, digits = 6): string {
  if (v === null || v === undefined) return 'n/a';
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  return Number(v.toPrecision(digits)).toString();
}
