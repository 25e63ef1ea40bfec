/**
 * mu Phi = pi on databases V^u (Hamming): Kronecker mode solves vs a dense LU
 * of the v^u x v^u Phi (baseline, same run), then Kronecker alone on sizes a
 * dense matrix could never hold. Also the distance loss's weighted-median
 * best guess vs the O(n^2) scan on a line.
 */
import { luFactor, luSolveTransposed } from '../../src-worker/linalg/lu';
import { phiMatrix } from '../../src-worker/metric/domain';
import { databaseDomain } from '../../src-worker/metric/database';
import { lineDomain } from '../../src-worker/metric/line';
import { solveMu } from '../../src-worker/bound/mu';
import { uniformPrior } from '../../src-worker/measure/prior';
import { distanceLoss } from '../../src-worker/measure/distance-loss';
import { bestByScan } from '../../src-worker/measure/guess-function';

function time<T>(f: () => T): { ms: number; v: T } {
  const t0 = performance.now();
  const v = f();
  return { ms: performance.now() - t0, v };
}

export default async function (): Promise<void> {
  const eps = 0.5;
  for (const db of [databaseDomain(5, 4), databaseDomain(6, 3)]) {
    const p = uniformPrior(db.n);
    const dense = time(() => luSolveTransposed(luFactor(phiMatrix(db, eps)), p));
    const kron = time(() => solveMu(db, eps, p).mu!);
    let err = 0;
    for (let i = 0; i < db.n; i++) err = Math.max(err, Math.abs(dense.v[i]! - kron.v[i]!));
    console.log(
      `${db.spec} (n=${db.n}): dense LU ${dense.ms.toFixed(1)} ms, Kronecker ${kron.ms.toFixed(2)} ms, ratio ${(dense.ms / kron.ms).toFixed(0)}x, max |diff| ${err.toExponential(1)}`,
    );
  }
  for (const db of [databaseDomain(10, 4), databaseDomain(12, 4)]) {
    const kron = time(() => solveMu(db, eps, uniformPrior(db.n)).mu!);
    console.log(
      `${db.spec} (n=${db.n}): Kronecker ${kron.ms.toFixed(0)} ms (dense Phi would be ${((db.n * db.n * 8) / 2 ** 40).toFixed(1)} TiB)`,
    );
  }
  const n = 2000;
  const line = lineDomain(n);
  const l = distanceLoss(line, 1);
  const q = Float64Array.from({ length: n }, (_, i) => Math.exp(-Math.abs(i - 700) / 50));
  const fast = time(() => {
    let s = 0;
    for (let k = 0; k < 200; k++) s += l.best(q).value;
    return s;
  });
  const scan = time(() => bestByScan(l, q).value * 200);
  console.log(
    `dist loss best guess on line:${n}: weighted median ${(fast.ms / 200).toFixed(3)} ms/column, scan ${scan.ms.toFixed(0)} ms/column, ratio ${(scan.ms / (fast.ms / 200)).toFixed(0)}x, same value: ${Math.abs(fast.v - scan.v) < 1e-9 * scan.v}`,
  );
}
