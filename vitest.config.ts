import { defineConfig } from 'vitest/config';
import { fontoxpathOrderVite } from './scripts/fontoxpath-patches.js';

export default defineConfig({
  // fontoxpath's patches, as the bundle has them (scripts/fontoxpath-patches.ts).
  plugins: [fontoxpathOrderVite()],
  test: {
    server: { deps: { inline: ['fontoxpath', 'xspattern'] } },
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // The default reporter counts skipped tests; this one also names them, reasons included.
    reporters: ['default', './test/support/skipped-reporter.ts'],
    // A time-out only catches a hang; no test reads a clock to pass. Under npm test with three
    // busy loops on 2 cores, single tests took up to 40 s (26 s for the handle-across-recycles
    // test, whose usual time is ~3 s), so the bound leaves room for a machine busier still.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportOnFailure: true,
      // The gate `npm run check` holds (issue 11): a point under what the suite reached on
      // 2026-12-01 (91.3 / 84.4 / 90.2 / 93.3); raise it as the gaps get tests, never lower it.
      thresholds: { statements: 90, branches: 83, functions: 89, lines: 92 },
    },
  },
});
