/**
 * Case study 8, privacy-type capacities (SPEC §6) at eps = ln 2:
 * multiplicative capacity max sum_i m_ii and additive capacity
 * 1 - min sum_i m_ii over eps*d-private channels, by LP, for lines, discrete
 * domains (cliques), grids and Hamming cubes; with the closed forms of SPEC §6
 * where they exist, and for vertex-transitive metrics (every point sees the
 * same distances: clique, ring, Hamming cube, 2 x 2 grid) the symmetric closed
 * forms n / sum_x e^(-eps d(x0,x)) and 1 - n / sum_x e^(eps d(x0,x)).
 */
import { parseDomainSpec } from '../metric/parse-domain-spec';
import type { Domain } from '../metric/domain';
import { privacyTypeCapacities } from '../capacity/privacy-type-capacity';
import {
  lineMultiplicativeCapacity,
  discreteMultiplicativeCapacity,
  discreteAdditiveCapacity,
} from '../capacity/capacity-closed-forms';
import { z } from 'zod';
import type { CaseStudyParams } from '../../src-shared/protocol/index';
import { studyParams, checkAbort, f, type Study, type StudyContext, type CaseStudyResult } from './study';
import type { SplitStudy } from './study';

const DEFAULT_DOMAINS: Record<string, string[]> = {
  lines: ['line:2', 'line:3', 'line:4', 'line:5', 'line:6', 'line:8', 'line:10'],
  discrete: ['clique:2', 'clique:3', 'clique:4', 'clique:5', 'clique:6', 'clique:8', 'clique:10'],
  grids: [
    'grid:2x2',
    'grid:2x3',
    'grid:3x3',
    'grid:4x4',
    'grid:2x2:metric=manhattan',
    'grid:3x3:metric=manhattan',
    'grid:4x4:metric=manhattan',
  ],
  hamming: ['hamming:1', 'hamming:2', 'hamming:3', 'hamming:4', 'hamming:5'],
};

/** Vertex-transitive test by distance multisets (necessary condition; enough for the families here). */
function sameDistanceProfile(d: Domain): boolean {
  const prof = (i: number) =>
    Array.from({ length: d.n }, (_, j) => d.distance(i, j))
      .sort((a, b) => a - b)
      .join(',');
  const p0 = prof(0);
  for (let i = 1; i < d.n; i++) if (prof(i) !== p0) return false;
  return true;
}

type Cell = string | number | null;

/**
 * One domain's row: family, domain, n, multiplicative, additive, log2 multiplicative, closed forms and their source.
 */
type CapacityRow = [string, string, number, number, number, number, number | null, number | null, string];

const num = z.union([z.number(), z.nan(), z.literal(Infinity), z.literal(-Infinity)]);
const rowSchema = z.tuple([
  z.string(),
  z.string(),
  z.number(),
  num,
  num,
  num,
  num.nullable(),
  num.nullable(),
  z.string(),
]);

interface CapacityParams {
  eps: number;
  families: [string, string[]][];
}

function capacityParams(params: CaseStudyParams): CapacityParams {
  const { epsilon: eps, maxHamming, maxLine } = studyParams('capacities', params);
  const families = Object.entries(DEFAULT_DOMAINS).map(([fam, specs]) => [
    fam,
    specs.filter((s) =>
      s.startsWith('hamming:')
        ? Number(s.slice(8)) <= maxHamming
        : s.startsWith('line:') || s.startsWith('clique:')
          ? Number(s.split(':')[1]) <= maxLine
          : true,
    ),
  ]) as [string, string[]][];
  return { eps, families };
}

/** The study's independent items, in order: (family, domain) pairs. */
function capacityItems(p: CapacityParams): [string, string][] {
  return p.families.flatMap(([fam, specs]) => specs.map((spec) => [fam, spec] as [string, string]));
}

/** The LP capacities of one domain and its closed forms. */
async function capacityRow(fam: string, spec: string, eps: number, ctx: StudyContext): Promise<CapacityRow> {
  checkAbort(ctx.signal);
  const d = parseDomainSpec(spec);
  const c = await privacyTypeCapacities(d, eps, { signal: ctx.signal });
  let closedM: number | null = null;
  let closedA: number | null = null;
  let source = '';
  if (spec.startsWith('line:')) {
    closedM = lineMultiplicativeCapacity(d.n, eps);
    source = 'closed form for lines';
  } else if (spec.startsWith('clique:')) {
    closedM = discreteMultiplicativeCapacity(d.n, eps);
    closedA = discreteAdditiveCapacity(d.n, eps);
    source = 'closed form for equal distances';
  } else if (sameDistanceProfile(d)) {
    let s1 = 0;
    let s2 = 0;
    for (let j = 0; j < d.n; j++) {
      s1 += Math.exp(-eps * d.distance(0, j));
      s2 += Math.exp(eps * d.distance(0, j));
    }
    closedM = d.n / s1;
    closedA = 1 - d.n / s2;
    source = 'symmetric metric';
  }
  return [fam, spec, d.n, c.multiplicative, c.additive, Math.log2(c.multiplicative), closedM, closedA, source];
}

/** Rows of the items start..start+count-1 (the whole study, or one part of it). */
async function capacityRows(
  p: CapacityParams,
  start: number,
  count: number,
  ctx: StudyContext,
): Promise<CapacityRow[]> {
  const items = capacityItems(p).slice(start, start + count);
  const rows: CapacityRow[] = [];
  for (const [k, [fam, spec]] of items.entries()) {
    ctx.progress(k / items.length, `capacity of ${spec}`);
    rows.push(await capacityRow(fam, spec, p.eps, ctx));
  }
  return rows;
}

/** Items of the capacities study for a split run (src-worker/casestudy/parts.ts). */
export const capacitiesParts: SplitStudy<CapacityRow> = {
  itemCount: (params) => capacityItems(capacityParams(params)).length,
  computeItems: (params, start, count, ctx) => capacityRows(capacityParams(params), start, count, ctx),
  itemSchema: rowSchema,
  assemble: (params, rows) => capacitiesReport(capacityParams(params), rows),
};

export const capacitiesStudy: Study = async (params, ctx): Promise<CaseStudyResult> => {
  const p = capacityParams(params);
  return capacitiesReport(p, await capacityRows(p, 0, capacityItems(p).length, ctx));
};

/** Findings, numbers, table and chart from the rows of every domain (in item order). */
function capacitiesReport({ eps, families }: CapacityParams, typedRows: CapacityRow[]): CaseStudyResult {
  const rows: Cell[][] = typedRows;
  const numbers: Record<string, number> = {};
  for (const r of typedRows) {
    numbers[`${r[1]} multiplicative`] = r[3];
    numbers[`${r[1]} additive`] = r[4];
  }
  return {
    type: 'case-study',
    study: 'capacities',
    title: `Privacy-type capacities at ε = ${f(eps)}`,
    findings: { kind: 'capacities', epsilon: eps, rows: typedRows },
    numbers,
    tables: [
      {
        id: 'capacities',
        title: `Capacities at ε = ${f(eps)}`,
        header: [
          'family',
          'domain',
          'n',
          'multiplicative',
          'additive',
          'max leakage (bits)',
          'closed form multiplicative',
          'closed form additive',
          'closed form',
        ],
        rows,
      },
    ],
    charts: [
      {
        id: 'capacities',
        title: `Multiplicative capacity at ε = ${f(eps)} against the number of points`,
        type: 'line',
        xLabel: 'number of points n',
        yLabel: 'multiplicative capacity',
        yMin: 0,
        series: families
          .map(([fam]) => {
            const rs = rows.filter((r) => r[0] === fam && !(fam === 'grids' && String(r[1]).includes('manhattan')));
            return {
              label: fam === 'grids' ? 'grids (Euclidean)' : fam,
              x: rs.map((r) => r[2] as number),
              y: rs.map((r) => r[3] as number),
              points: true,
            };
          })
          .concat([
            (() => {
              const rs = rows.filter((r) => r[0] === 'grids' && String(r[1]).includes('manhattan'));
              return {
                label: 'grids (Manhattan)',
                x: rs.map((r) => r[2] as number),
                y: rs.map((r) => r[3] as number),
                points: true,
              };
            })(),
          ]),
      },
    ],
  };
}
