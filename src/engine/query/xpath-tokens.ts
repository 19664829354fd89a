/**
 * A lexer for XPath 1.0 expressions (§3.7), just enough to find the name tests and the function
 * calls in one: it never evaluates anything, and libxml2 stays the judge of what is valid. The
 * hints that explain an empty answer read it (namespace-hints.ts, padded-value-hint.ts).
 */

/** What the principal node type of a name test's axis is (XPath 1.0 §2.3). */
export type NameTestAxis = 'element' | 'attribute' | 'namespace';

export type XPathToken =
  /** `entry`, `a:entry`, `a:*` or `*` in a step; `start`/`end` span it in the expression. */
  | {
      kind: 'name-test';
      prefix: string | null;
      local: string;
      axis: NameTestAxis;
      start: number;
      end: number;
    }
  /** A name followed by `(`: a function call or a node type test; `end` is past the name. */
  | { kind: 'function'; name: string; start: number; end: number }
  /** Anything else: a literal, a number, an operator, a bracket, an axis. */
  | { kind: 'other'; text: string; start: number; end: number };

const NAME_START = /[\p{L}_]/u;
const NAME_CHAR = /[\p{L}\p{N}_.\-·\p{Mn}\p{Mc}]/u;
const OPERATOR_NAMES = new Set(['and', 'or', 'mod', 'div']);
/** What follows a name: `(` makes it a function, `::` an axis (read in place, never by slicing). */
const AFTER_NAME = /\s*(\(|::)?/y;
/** Tokens after which `*` is a name test and `and` a name (XPath 1.0 §3.7); an axis ends in `::`. */
const OPERAND_EXPECTED = new Set(['@', '::', '(', '[', ',', ...OPERATOR_NAMES]);
for (const operator of ['*', '/', '//', '|', '+', '-', '=', '!=', '<', '<=', '>', '>=']) {
  OPERAND_EXPECTED.add(operator);
}

export function tokenize(expression: string): XPathToken[] {
  const tokens: XPathToken[] = [];
  let axis: NameTestAxis = 'element';
  let i = 0;
  const operandExpected = () => {
    const previous = tokens.at(-1);
    if (previous === undefined) return true;
    return previous.kind === 'other' && (OPERAND_EXPECTED.has(previous.text) || previous.text.endsWith('::'));
  };
  const push = (token: XPathToken) => {
    tokens.push(token);
    i = token.end;
  };
  const other = (text: string) => push({ kind: 'other', text, start: i, end: i + text.length });
  while (i < expression.length) {
    const char = expression[i] as string;
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    if (char === '"' || char === "'") {
      const close = expression.indexOf(char, i + 1);
      other(expression.slice(i, close === -1 ? expression.length : close + 1));
    } else if (/[0-9]/.test(char) || (char === '.' && /[0-9]/.test(expression[i + 1] ?? ''))) {
      other(/^[0-9]*\.?[0-9]*/.exec(expression.slice(i))?.[0] as string);
    } else if (char === '@') {
      other('@');
      axis = 'attribute';
      continue;
    } else if (char === '*' && operandExpected()) {
      push({ kind: 'name-test', prefix: null, local: '*', axis, start: i, end: i + 1 });
    } else if (char === '$') {
      const name = scanName(expression, i + 1);
      other(expression.slice(i, name));
    } else if (NAME_START.test(char)) {
      const token = nameToken(expression, i, axis, operandExpected());
      if (token.kind === 'other' && token.text.endsWith('::')) {
        const name = token.text.slice(0, -2).trim();
        push(token);
        axis = name === 'attribute' ? 'attribute' : name === 'namespace' ? 'namespace' : 'element';
        continue;
      }
      push(token);
    } else {
      const two = expression.slice(i, i + 2);
      other(['::', '..', '//', '!=', '<=', '>='].includes(two) ? two : char);
    }
    axis = 'element';
  }
  return tokens;
}

/** Past the NCName starting at `from` (which may be empty). */
export function scanName(expression: string, from: number): number {
  let end = from;
  if (!NAME_START.test(expression[end] ?? '')) return end;
  while (end < expression.length && NAME_CHAR.test(expression[end] as string)) end++;
  return end;
}

/** A QName, `prefix:*`, an operator name, a function name or an axis name, starting at `start`. */
function nameToken(
  expression: string,
  start: number,
  axis: NameTestAxis,
  operandExpected: boolean,
): XPathToken {
  const first = scanName(expression, start);
  let end = first;
  let prefix: string | null = null;
  let local = expression.slice(start, first);
  if (expression[first] === ':' && expression[first + 1] !== ':') {
    if (expression[first + 1] === '*') {
      prefix = local;
      local = '*';
      end = first + 2;
    } else if (NAME_START.test(expression[first + 1] ?? '')) {
      prefix = local;
      end = scanName(expression, first + 1);
      local = expression.slice(first + 1, end);
    }
  }
  if (prefix === null && !operandExpected && OPERATOR_NAMES.has(local)) {
    return { kind: 'other', text: local, start, end };
  }
  AFTER_NAME.lastIndex = end;
  const after = AFTER_NAME.exec(expression)?.[1];
  if (after === '(' && local !== '*') {
    return { kind: 'function', name: expression.slice(start, end), start, end };
  }
  if (after === '::' && prefix === null) {
    const axisEnd = expression.indexOf('::', end) + 2;
    return { kind: 'other', text: expression.slice(start, axisEnd), start, end: axisEnd };
  }
  return { kind: 'name-test', prefix, local, axis, start, end };
}
