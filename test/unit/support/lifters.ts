/** The two lifts of a grid's all-pairs polytope, for the lifter test and the `lift` bench. */
import { privacyConstraintGraph } from '../../../src-worker/lp/model/privacy-constraint-graph';
import { MAX_EXPONENT } from '../../../src-worker/lp/model/channel-model';
import { ColumnLifter, GridTableLifter } from '../../../src-worker/lp/model/privacy-repair';
import type { Domain } from '../../../src-worker/metric/domain';

/**
 * ColumnLifter over every pair row at e^min(eps d, MAX_EXPONENT) (the definition) and GridTableLifter (the engine's).
 */
export function allPairsLifters(g: Domain, eps: number): { byRows: ColumnLifter; byTable: GridTableLifter } {
  const graph = privacyConstraintGraph(g, eps, 'all-pairs');
  const f = Float64Array.from(graph.exponent, (x) => Math.exp(Math.min(x, MAX_EXPONENT)));
  return { byRows: new ColumnLifter(g.n, graph.from, graph.to, f), byTable: new GridTableLifter(g, eps, MAX_EXPONENT) };
}
