import { MAX_VIOLATION_TEXT_CHARS } from '../../limits.js';
import { EngineError } from '../errors.js';
import { documentPointer } from '../libxml2/tree.js';
import { withDocument, type XmlSource } from '../parse.js';
import { evaluate } from '../query/query.js';
import type { Violation } from './violations.js';

const XSD = 'http://www.w3.org/2001/XMLSchema';
/** Patterns named in a message, at most; past it only their number is given. */
const NAMED_PATTERNS = 5;

/** libxml2 stopped validating before the end (it returned < 0): say why, with what to change. */
export function validationFailure(reports: Violation[], xsd: XmlSource): EngineError {
  const first = reports[0];
  const place = first ? [first.line === null ? null : `line ${first.line}`, first.path].filter(Boolean) : [];
  const where = place.length > 0 ? ` (${place.join(', ')})` : '';
  const line = first?.line ?? undefined;
  // libxml2 reports the pattern's backtracking limit only as an internal error in the facet check.
  if (reports.some((report) => /validating against a pattern facet/.test(report.message))) {
    return new EngineError({
      code: 'limit-exceeded',
      message: `${patternsNamed(xsd)} in the \`xsd\` argument backtracked past libxml2's limit while checking a value of the \`xml\` argument${where}: rewrite the pattern so that its alternatives and repeats cannot match the same text in many ways (as \`(a|aa)*\` can a run of a's), or shorten the value.`,
      ...(line === undefined ? {} : { line }),
    });
  }
  const reason = reports.map((report) => report.message).join(' ') || 'no reason given';
  return new EngineError({
    code: 'invalid-schema',
    message: `The \`xsd\` argument could not be applied to the \`xml\` argument${where}: libxml2 stopped validating with an internal error (${reason}). Simplify the schema part that applies there, or validate an extract of the document.`,
    ...(line === undefined ? {} : { line }),
  });
}

/**
 * libxml2 does not say which pattern it gave up on. The schema's own patterns say it when
 * there is one, and narrow it down when there are a few; this runs only on the failure path,
 * so the schema is parsed again rather than kept.
 */
function patternsNamed(xsd: XmlSource): string {
  const patterns = withDocument(
    xsd,
    'validate',
    (doc) => [...new Set(evaluate(documentPointer(doc), '//xs:pattern/@value', { xs: XSD }).values)],
    'xsd',
  );
  const quoted = patterns.map((pattern) => `\`${pattern.slice(0, MAX_VIOLATION_TEXT_CHARS)}\``);
  if (quoted.length === 1) return `The pattern ${quoted[0]}`;
  if (quoted.length === 0 || quoted.length > NAMED_PATTERNS) return 'An xs:pattern facet';
  return `One of the patterns ${quoted.join(', ')}`;
}
