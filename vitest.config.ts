import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.ts'] } },
      // The operations once more, over the JSON-file store: the same contract, messages read from disk.
      {
        extends: true,
        test: { name: 'operations on the JSON-file store', include: ['test/operations/**/*.test.ts'], env: { TEST_STORE: 'json-file' } },
      },
    ],
  },
});
