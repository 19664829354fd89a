import { EngineError } from '../engine/errors.js';

/**
 * What to write instead of a function neither XPath 1.0 nor XPath 3.1 (as fontoxpath 3.34
 * evaluates it) has: the XPath 2.0+ functions models write
 * are answered by XPath 3.1 now (docs/adr/0033-xpath-3-1-beside-xpath-1-0.md), so only these
 * remain to explain.
 */
const INSTEAD: Record<string, string> = {
  'format-date':
    'year-from-date(), month-from-date() and day-from-date() give the parts; concat() or || joins them',
  'format-dateTime':
    'year-from-dateTime(), hours-from-dateTime() and the like give the parts; concat() or || joins them',
  'format-time': 'hours-from-time() and minutes-from-time() give the parts; concat() or || joins them',
  'analyze-string': 'tokenize(), matches() and replace() split, test and rewrite with a regular expression',
  'contains-token': "tokenize(@a) = 'x' tests whether a space-separated list holds x",
  current: 'it is XSLT, not XPath: write the path from the document root instead',
  key: 'it is XSLT, not XPath: select with a predicate instead, e.g. //item[@id = $x]',
  doc: 'it loads another document, which this server never does: query the document you pass',
  document: 'it loads another document, which this server never does: query the document you pass',
  'unparsed-text': 'it reads a file, which this server never does',
  collection: 'it loads other documents, which this server never does',
  'normalize-unicode': 'the text comes back as the document has it',
  serialize: 'output: "xml" shows nodes as markup',
};

/**
 * An engine error that names a function this server's XPath lacks, with one sentence saying what
 * to write instead; any other error comes back as it was.
 */
export function withMissingFunctionHint(error: unknown): unknown {
  if (!(error instanceof EngineError) || error.code !== 'xpath-failed') return error;
  const missing = /XPST0017: Function Q\{[^}]*\}([\w.-]+) with arity/.exec(error.message)?.[1];
  if (missing === undefined) return error;
  const instead = INSTEAD[missing];
  if (instead === undefined) return error;
  return new EngineError({ code: error.code, message: `${error.message} \`${missing}()\`: ${instead}.` });
}
