import type { RowSource } from '../mechanism/channel';
import { FunctionRowSource, GridOffsetChannel } from '../mechanism/function-row-source';

/** Least time between two progress reports of a streamed pass. */
const REPORT_EVERY_MS = 250;

/**
 * A channel generated row by row (FunctionRowSource: tg, rr, exponential,
 * laplace, planar Laplace, symmetric) that reports how far a streaming pass
 * over it is: fraction = rows generated in the current pass / rows, with
 * the step named (`step(): string`, e.g. 'measuring'). Every pass (measure,
 * expected loss, privacy check, CSV export) walks rows 0..n-1, so the
 * fraction restarts at each pass and the message says which one it is.
 * Other channels (dense, implicit tight) are returned unchanged: their
 * passes are either small (dense is bounded) or structural.
 */
export function withRowProgress(
  ch: RowSource,
  progress: (fraction: number | null, message: string) => void,
  step: () => string,
): RowSource {
  if (!(ch instanceof FunctionRowSource)) return ch;
  const n = ch.rows;
  let last = performance.now();
  let seen = 0;
  const fill = (i: number, out: Float64Array): void => {
    ch.row(i, out);
    if ((++seen & 63) === 0) {
      const now = performance.now();
      if (now - last >= REPORT_EVERY_MS) {
        last = now;
        progress(Math.min(1, (i + 1) / n), `${step()}: row ${i + 1} of ${n}`);
      }
    }
  };
  // Keep the offset structure visible to the privacy check (planar Laplace).
  if (ch instanceof GridOffsetChannel) return new GridOffsetChannel(n, fill, (i) => ch.rowLabel(i), ch.gridSpec);
  return new FunctionRowSource(
    n,
    ch.cols,
    fill,
    (i) => ch.rowLabel(i),
    (j) => ch.colLabel(j),
  );
}
