/**
 * The browser end-to-end suite as one vitest file. Each `*.e2e.ts` module is imported inside a describe of its own
 * name, so its hooks (its harness: a web-mode host and a Chromium) stay its own and the modules run one after another.
 *
 * Why one file: a whole e2e module keeps under one of the CI machine's two cores busy (the tour: 62 s of CPU in 86 s),
 * and vitest runs a project whose files may not run in parallel as a group of its own after the unit files. As one
 * file of a project with the unit files' worker count, it runs on one worker from the start while the other worker
 * takes the unit files (vitest.config.ts).
 *
 * `MECHSTUDIO_E2E=tour,kept npx vitest run test/e2e` runs only the named modules.
 */
import { readdirSync } from 'node:fs';
import { describe } from 'vitest';

const only = process.env.MECHSTUDIO_E2E?.split(',').map((s) => s.trim());
const names = readdirSync(__dirname)
  .filter((f) => f.endsWith('.e2e.ts'))
  .map((f) => f.slice(0, -'.e2e.ts'.length))
  .sort();
const unknown = (only ?? []).filter((n) => !names.includes(n));
if (unknown.length)
  throw new Error(`MECHSTUDIO_E2E names no e2e module: ${unknown.join(', ')} (there are ${names.join(', ')})`);

for (const name of names.filter((n) => !only || only.includes(n))) {
  describe(name, async () => {
    await import(`./${name}.e2e.ts`);
  });
}
