import { EngineError } from './errors.js';
import type { Violation } from './violations.js';

/** libxml2 stopped validating before the end (an internal error); say so with what it reported. */
export function validationFailure(reports: Violation[]): EngineError {
  const first = reports[0];
  const where = first
    ? ` (${[first.line === null ? null : `line ${first.line}`, first.path].filter(Boolean).join(', ')})`
    : '';
  const reason = reports.map((report) => report.message).join(' ') || 'no reason given';
  return new EngineError({
    code: 'invalid-schema',
    message: `The \`xsd\` argument could not be applied to the \`xml\` argument${where}: libxml2 stopped validating with an internal error (${reason}). Simplify the schema part that applies there, or validate an extract of the document.`,
  });
}
