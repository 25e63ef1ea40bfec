import { assertPositiveInt, invalid } from '../../src-shared/errors';
import type { Domain, DomainStructure, GridMetric, WeightedEdges } from './domain';
import { assertEdgeListFits } from './shortest-paths';

/**
 * Grid of R x C cells of side `step` (km or any unit), points at the cell
 * centres, index r*C + c, with Euclidean, Manhattan or Chebyshev distance
 * times step (SPEC §1). Translation invariant. Manhattan and Chebyshev are
 * shortest-path metrics of the 4- and 8-neighbour graphs (edges exposed);
 * Euclidean is not a graph metric (the LP layer uses a spanner instead).
 */
export function gridDomain(rows: number, cols: number, step = 1, metric: GridMetric = 'euclidean'): Domain {
  assertPositiveInt(rows, 'grid rows');
  assertPositiveInt(cols, 'grid columns');
  if (!Number.isFinite(step) || step <= 0) invalid(`grid cell size must be a finite number > 0, got ${step}`);
  if (metric !== 'euclidean' && metric !== 'manhattan' && metric !== 'chebyshev')
    invalid(`unknown grid metric '${String(metric)}' (euclidean, manhattan or chebyshev)`);
  const offset = (dr: number, dc: number): number => {
    const a = Math.abs(dr);
    const b = Math.abs(dc);
    if (metric === 'manhattan') return (a + b) * step;
    if (metric === 'chebyshev') return Math.max(a, b) * step;
    return Math.hypot(a, b) * step;
  };
  let edges: WeightedEdges | undefined;
  // 4-neighbour (Manhattan) or 8-neighbour (Chebyshev) edges, built on first
  // access straight into typed arrays, per cell in the order right, down,
  // down-right, down-left.
  const buildEdges = (): WeightedEdges => {
    const diagonal = metric === 'chebyshev';
    const m = rows * (cols - 1) + (rows - 1) * cols + (diagonal ? 2 * (rows - 1) * (cols - 1) : 0);
    assertEdgeListFits(m, `edge list of the ${rows} x ${cols} grid`);
    const from = new Int32Array(m);
    const to = new Int32Array(m);
    let k = 0;
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) {
        const i = r * cols + c;
        if (c + 1 < cols) {
          from[k] = i;
          to[k++] = i + 1;
        }
        if (r + 1 < rows) {
          from[k] = i;
          to[k++] = i + cols;
          if (diagonal) {
            if (c + 1 < cols) {
              from[k] = i;
              to[k++] = i + cols + 1;
            }
            if (c > 0) {
              from[k] = i;
              to[k++] = i + cols - 1;
            }
          }
        }
      }
    return { from, to, weight: new Float64Array(m).fill(step) };
  };
  const structure: DomainStructure = {
    lattice: { shape: [rows, cols], periodic: false, offsetDistance: (d) => offset(d[0]!, d[1]!) },
    grid: { rows, cols, step, metric },
  };
  // Euclidean distance is not a graph metric: no `edges` key at all.
  if (metric !== 'euclidean')
    Object.defineProperty(structure, 'edges', { enumerable: true, get: () => (edges ??= buildEdges()) });
  const spec = `grid:${rows}x${cols}${step !== 1 ? `:step=${step}` : ''}${metric !== 'euclidean' ? `:metric=${metric}` : ''}`;
  return {
    kind: 'grid',
    spec,
    description: `${rows} x ${cols} grid of ${step}-unit cells, ${metric} distance`,
    n: rows * cols,
    label: (i) => `(${Math.floor(i / cols)},${i % cols})`,
    distance: (i, j) => offset(Math.floor(i / cols) - Math.floor(j / cols), (i % cols) - (j % cols)),
    structure,
  };
}
