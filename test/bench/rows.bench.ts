/**
 * The `rows` job: what the app's views cost at large sizes.
 * Block means of the whole channel (the heat map), one row (the grid view),
 * a 50-row window (the table), on planar Laplace over 30 x 30 and 100 x 100
 * grids; baseline: materialising the dense channel (what the page would need
 * to hold), measured in the same run on 30 x 30.
 */
import { silentContext } from '../../src-worker/jobs/context';
import { clearRowsCache } from '../../src-worker/jobs/rows';
import { runJobRequest } from '../../src-worker/jobs/run';
import { parseJobRequest } from '../../src-shared/protocol/validate';

async function ms(req: unknown): Promise<number> {
  const p = parseJobRequest(req);
  if (!p.ok) throw new Error(p.error.message);
  const t = performance.now();
  await runJobRequest(p.value, silentContext());
  return performance.now() - t;
}

export default async function bench(): Promise<void> {
  for (const side of [30, 100]) {
    clearRowsCache();
    const mechanism = { domain: `grid:${side}x${side}:step=0.5`, epsilon: 1, kind: 'planar-laplace' };
    const blocks = await ms({ type: 'rows', mechanism, blocks: 120 });
    const row = await ms({ type: 'rows', mechanism, rows: [Math.floor((side * side) / 2)] });
    const window = await ms({ type: 'rows', mechanism, rows: Array.from({ length: 50 }, (_, i) => i) });
    console.log(
      `planar Laplace ${side}x${side} (${(side ** 4).toExponential(1)} entries): block means 120x120 ${blocks.toFixed(0)} ms (construction included), one row ${row.toFixed(1)} ms, 50 rows ${window.toFixed(1)} ms (construction kept)`,
    );
    if (side === 30) {
      const dense = await ms({ type: 'mechanism', ...mechanism, inlineLimit: 1_000_000 });
      console.log(
        `  baseline: the dense 900 x 900 channel as a mechanism result ${dense.toFixed(0)} ms (x${(dense / row).toFixed(0)} one row)`,
      );
    }
  }
}
