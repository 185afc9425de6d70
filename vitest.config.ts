import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { PROCESS_TESTS } from './test/process-tests.js';

/**
 * Three projects, all run by `npm test` (`vitest run`):
 * - `unit`: the tests that run in their own process only (`npm run test:unit` runs it and the next);
 * - `unit: operations on the JSON-file store`: the operation tests once more, over the JSON-file
 *   store (TEST_STORE=json-file): the same contract, messages read from disk;
 * - `process`: the tests that start processes, npm or a browser (test/process-tests.ts;
 *   `npm run test:process`).
 *
 * Each test file and the processes it starts write temporary files in a folder of the run's, which
 * must be empty at the end (test/global-setup.ts, test/setup.ts). The run says first what it needs
 * from the machine, and last which tests it skipped, and why (test/skip-reasons-reporter.ts).
 */
export default defineConfig({
  test: {
    // A test in its own process takes milliseconds: 20 s is for a machine busy with other work.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Two test files at a time at least. vitest's default is one fewer than the cores: one on CI's
    // 2-core machine, where the suite then ran file after file (the files' own times added up to
    // 389 s of its 477 s) while most process tests wait, on npm, on a child's start or a server,
    // as much as they compute. Both projects share the workers (the process files start first,
    // largest first; unit files fill in).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/skip-reasons-reporter.ts'],
    setupFiles: ['test/setup.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: PROCESS_TESTS } },
      {
        extends: true,
        test: {
          name: 'unit: operations on the JSON-file store',
          include: ['test/operations/**/*.test.ts'],
          env: { TEST_STORE: 'json-file' },
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: PROCESS_TESTS,
          // Starting node, npm, tsc or Chromium on a 2-core machine shared with other work takes
          // seconds, at times tens of seconds: two minutes still catches a test that hangs.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
