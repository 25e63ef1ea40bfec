import { defineConfig } from 'vitest/config';

// Two projects: fast unit/integration suites, and the browser end-to-end
// suite (web mode driven by Debian's Chromium through playwright-core).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
          environment: 'node',
          // Two files at a time: vitest's default (cores - 1) runs one at a time on the 2-core CI machine, where
          // a JSON report of a whole run showed one file running for 1,285 s of 1,552 s and none for the rest.
          maxWorkers: 2,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          // one file (all.test.ts imports the *.e2e.ts modules): with the unit files' worker count it shares their
          // group and runs on one worker from the start, beside them (vitest sorts the e2e project first by name)
          include: ['test/e2e/all.test.ts'],
          environment: 'node',
          maxWorkers: 2,
          testTimeout: 180_000,
          hookTimeout: 300_000,
          // the page updates asynchronously, and the host, its worker and Chromium share the 2 cores with a unit file:
          // a poll without its own timeout waits up to 15 s (vitest's default of 1 s made
          // "Recover it" flaky when the recovered project rendered after 1.6 s)
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
