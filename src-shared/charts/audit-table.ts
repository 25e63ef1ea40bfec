/** An audit result as a flat table (its CSV file): every test made, best first, so the witness is the first row. */
import type { AuditResult } from '../protocol/index';
import type { Table } from './result-table';

export function auditTable(r: AuditResult): Table {
  return {
    header: ['secret a', 'secret b', 'distance', 'event', 'count a', 'samples a', 'count b', 'samples b', 'lower P(E|a)', 'upper P(E|b)', 'eps bound'],
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
