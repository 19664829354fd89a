import type { Reporter, TestCase } from 'vitest/node';

/**
 * Lists every skipped test by its full name after the run. The default reporter gives only their
 * number, while each skip says why in its name (a W3C/QT3 group's cause, a missing redis-server or
 * nginx), so a reader of `npm test` could not tell what was left out or why.
 */
export default class SkippedReporter implements Reporter {
  readonly #skipped: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    if (testCase.result().state === 'skipped') this.#skipped.push(testCase.fullName);
  }

  onTestRunEnd(): void {
    if (this.#skipped.length === 0) return;
    const lines = this.#skipped.map((name) => `  - ${name}`).join('\n');
    process.stderr.write(`\nSkipped (${this.#skipped.length}), each with its reason:\n${lines}\n`);
  }
}
