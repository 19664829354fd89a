import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportOnFailure: true,
      // The floor `npm run coverage` holds (docs/testing.md): raised as the gaps get tests,
      // never lowered to let a change through.
      thresholds: { statements: 0, branches: 0, functions: 0, lines: 0 },
    },
  },
});
