import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
    // record.ts records every response when ENRICH_RECORD_RESPONSES names a directory (test/recording/);
    // check-responses.ts checks every response inject() gives a test against docs/openapi.json, failing the
    // request when it is not as documented (test/openapi/conformance.ts).
    setupFiles: ['test/recording/record.ts', 'test/openapi/check-responses.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
