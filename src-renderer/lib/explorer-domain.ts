/**
 * Small domains built in the page for the privacy-type explorer (SPEC §6).
 * Uses the engine's domain constructors directly rather than its text parser,
 * whose csv:FILE support pulls Node-only CSV code into the bundle.
 */
import type { Domain } from '../../src-worker/metric/domain';
import { lineDomain } from '../../src-worker/metric/line';
import { ringDomain } from '../../src-worker/metric/ring';
import { cliqueDomain } from '../../src-worker/metric/clique';
import { gridDomain } from '../../src-worker/metric/grid';
import { parseDomainText } from '../editors/domain-spec';

/** The domain for `text` when it is a small line, ring, clique or grid (<= 12 points), else null. */
export function explorerDomain(text: string): Domain | null {
  const f = parseDomainText(text);
  try {
    if (f.kind === 'line' && f.n <= 12) return lineDomain(f.n);
    if (f.kind === 'ring' && f.n <= 12) return ringDomain(f.n);
    if (f.kind === 'clique' && f.n <= 12) return cliqueDomain(f.n);
    if (f.kind === 'grid' && f.rows * f.cols <= 12) return gridDomain(f.rows, f.cols, f.step, f.metric);
  } catch {
    return null;
  }
  return null;
}
