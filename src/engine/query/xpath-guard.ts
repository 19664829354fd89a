import { MAX_XPATH_LENGTH, MAX_XPATH_NESTING } from '../../limits.js';
import { EngineError } from '../errors.js';

export type Namespaces = Record<string, string>;

const PREFIX = /(?<![\p{L}\p{N}_.\-:·])([\p{L}_][\p{L}\p{N}_.\-·]*):(?!:)/gu;

/**
 * The prefixes XPath 3.1 binds itself (functions, types, math, maps, arrays, errors), and XQuery's
 * `local` for the functions an expression declares: usable without a `namespaces` binding
 * (docs/adr/0033-xpath-3-1-beside-xpath-1-0.md). Any other prefix resolves only against `namespaces`.
 */
export const XPATH31_PREFIXES: ReadonlySet<string> = new Set([
  'fn',
  'xs',
  'math',
  'map',
  'array',
  'err',
  'local',
]);

/**
 * Checks an expression before it reaches libxml2: bounds that protect the WebAssembly stack,
 * and an unbound prefix, which libxml2 reports only vaguely and deserves a sentence naming the
 * fix. String literals are masked so text inside them is ignored. A variable nothing binds is
 * left to the evaluators (XPST0008, worded in xpath31.ts): telling a variable bound inside the
 * expression (`declare function local:f($n)`, `copy $c := …`, `let`) from an outside one takes
 * XQuery's parser, and a guess by text refused the former and was side-stepped by a comment.
 */
export function guardExpression(expression: string, namespaces: Namespaces): void {
  if (expression.trim() === '') {
    throw new EngineError({
      code: 'invalid-xpath',
      message: 'The `xpath` argument is empty: pass an XPath 1.0 expression such as `count(//item)`.',
    });
  }
  if (expression.includes('\0')) {
    throw new EngineError({
      code: 'invalid-xpath',
      message: 'The `xpath` argument contains a NUL character, which XPath does not allow.',
    });
  }
  if (expression.length > MAX_XPATH_LENGTH) {
    throw new EngineError({
      code: 'invalid-xpath',
      message: `The \`xpath\` argument is ${expression.length} characters long; the limit is ${MAX_XPATH_LENGTH}. Split the question into several shorter queries.`,
    });
  }
  const code = maskLiterals(expression);
  const nesting = maxNesting(code);
  if (nesting > MAX_XPATH_NESTING) {
    throw new EngineError({
      code: 'invalid-xpath',
      message: `The \`xpath\` argument nests brackets ${nesting} deep; the limit is ${MAX_XPATH_NESTING}. Flatten the expression or split it into several queries.`,
    });
  }
  checkBindings(namespaces);
  const prefix = unboundPrefix(expression, namespaces);
  if (prefix !== undefined) {
    throw new EngineError({
      code: 'unbound-prefix',
      message: `Prefix \`${prefix}\` is not bound: pass it in the \`namespaces\` argument (for example {"${prefix}": "<namespace URI>"}); call xml_inspect to see the document's namespace URIs.`,
    });
  }
}

/** The first prefix the expression uses that `namespaces` does not bind (`xml` is always bound). */
export function unboundPrefix(expression: string, namespaces: Namespaces): string | undefined {
  // `child::q:a`: the axis separator is masked so the name test after it is seen as `q:a`.
  for (const match of maskLiterals(expression).replaceAll('::', '  ').matchAll(PREFIX)) {
    const prefix = match[1] ?? '';
    if (prefix !== 'xml' && !XPATH31_PREFIXES.has(prefix) && !Object.hasOwn(namespaces, prefix))
      return prefix;
  }
  return undefined;
}

const NCNAME = /^[\p{L}_][\p{L}\p{N}_.\-·]*$/u;

/** A binding XPath can use: an NCName prefix and a non-empty URI (XPath 1.0 has no default namespace). */
export function checkBindings(namespaces: Namespaces): void {
  for (const [prefix, uri] of Object.entries(namespaces)) {
    if (prefix === '') {
      throw new EngineError({
        code: 'invalid-argument',
        message: `The \`namespaces\` argument binds the empty prefix to "${uri}", but XPath 1.0 has no default namespace: unprefixed names always mean "no namespace". Bind a prefix instead, e.g. {"d": "${uri}"}, and write d:name.`,
      });
    }
    if (!NCNAME.test(prefix)) {
      throw new EngineError({
        code: 'invalid-argument',
        message: `The \`namespaces\` argument has the prefix "${prefix}", which is not a valid XML name (letters, digits, _ . - and no colon).`,
      });
    }
    if (uri === '' && prefix !== 'xml') {
      throw new EngineError({
        code: 'invalid-argument',
        message: `The \`namespaces\` argument binds \`${prefix}\` to an empty URI; a prefix cannot mean "no namespace". Use an unprefixed name for elements in no namespace.`,
      });
    }
  }
}

/** Replaces the inside of every string literal with spaces, keeping positions. */
function maskLiterals(expression: string): string {
  return expression.replace(
    /"[^"]*"|'[^']*'/g,
    (literal) => `${literal[0]}${' '.repeat(literal.length - 2)}${literal[0]}`,
  );
}

function maxNesting(code: string): number {
  let depth = 0;
  let deepest = 0;
  for (const char of code) {
    if (char === '(' || char === '[') deepest = Math.max(deepest, ++depth);
    else if (char === ')' || char === ']') depth = Math.max(0, depth - 1);
  }
  return deepest;
}
