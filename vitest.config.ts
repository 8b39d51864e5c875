import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
    // Records every response when ENRICH_RECORD_RESPONSES names a directory (test/recording/). Not yet wired:
    // test/openapi/check-responses.ts (every response checked against the document) waits for a run of the
    // route tests with it, and the document fixes that run finds.
    setupFiles: ['test/recording/record.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
