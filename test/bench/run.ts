/**
 * `npm run bench`: runs every test/bench/*.bench.ts in one process, in name
 * order (or only those whose name contains an argument), each printing its
 * figures and ratios against a baseline measured in the same run.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { default: () => Promise<void> | void };
  const t0 = performance.now();
  await mod.default();
  console.log(`(${f}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
