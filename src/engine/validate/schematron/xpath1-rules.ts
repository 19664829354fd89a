import type { XmlDocument } from 'libxml2-wasm';
import { MAX_SCHEMATRON_LET_NODES, MAX_XPATH_OPERATIONS } from '../../../limits.js';
import { EngineError } from '../../errors.js';
import { documentPointer, type NodeRef } from '../../libxml2/tree.js';
import { evaluateXPath, isXPathFailure, type XPathValue } from '../../libxml2/xpath.js';
import { PathWriter } from '../../query/node-path.js';
import { xpathNumberToString } from '../../query/xpath-number.js';
import { type Evaluator, selectionOf } from './evaluator.js';
import type { Let } from './model.js';
import { withoutLiterals } from './read-schema.js';

/*
 * queryBinding xslt (or none): libxml2's XPath 1.0 over the same parse. libxml2-wasm binds no
 * variables, so a `let` is evaluated once where it stands and its value written into the
 * expressions that read it as a literal: a number, a string, a boolean, or a node-set as the
 * union of its nodes' paths (at most MAX_SCHEMATRON_LET_NODES nodes), which selects exactly
 * those nodes again. `current()` is the context node's path the same way.
 */

type Values = ReadonlyMap<string, string>;

export function xpath1Evaluator(doc: XmlDocument, schemaNamespaces: Record<string, string>): Evaluator {
  const docPtr = documentPointer(doc);
  const paths = new PathWriter(schemaNamespaces, { bindUnbound: true });
  const namespaces = () => ({ ...paths.chosenBindings, ...schemaNamespaces });
  const run = <T>(
    expression: string,
    context: NodeRef,
    read: (value: XPathValue) => T,
    what: () => string,
  ): T => {
    const result = evaluateXPath(
      docPtr,
      expression,
      namespaces(),
      MAX_XPATH_OPERATIONS,
      read,
      undefined,
      context,
    );
    if (isXPathFailure(result)) {
      throw new EngineError({
        code: 'xpath-failed',
        message: `${what()} could not be evaluated as XPath 1.0 (queryBinding "xslt"): ${result.reason}. For XPath 2.0 and later, set queryBinding="xslt2" on the schema.`,
      });
    }
    return result;
  };
  const literal = (value: XPathValue, name: string): string => {
    switch (value.type) {
      case 'number':
        return numberLiteral(value.value);
      case 'boolean':
        return value.value ? 'true()' : 'false()';
      case 'string':
        return stringLiteral(value.value);
      case 'node-set':
        return nodeSetLiteral(value, name);
      default:
        throw new EngineError({
          code: 'xpath-failed',
          message: `The \`let\` "${name}" gives a value XPath 1.0 cannot hold.`,
        });
    }
  };
  const nodeSetLiteral = (value: Extract<XPathValue, { type: 'node-set' }>, name: string): string => {
    if (value.size === 0) return '/..';
    if (value.size > MAX_SCHEMATRON_LET_NODES) {
      throw new EngineError({
        code: 'limit-exceeded',
        message: `The \`let\` "${name}" selects ${value.size} nodes; with queryBinding "xslt" (XPath 1.0) a let may hold at most ${MAX_SCHEMATRON_LET_NODES}. Select fewer, or set queryBinding="xslt2" to evaluate it as XPath 3.1.`,
      });
    }
    const each: string[] = [];
    for (let index = 0; index < value.size; index++) each.push(paths.pathOf(value.node(index)));
    return `(${each.join(' | ')})`;
  };
  const bind = (lets: readonly Let[], context: NodeRef, outer: Values): Values => {
    const values = new Map(outer);
    for (const { name, value } of lets) {
      const expression = substitute(value, values, context === docPtr ? undefined : paths.pathOf(context));
      values.set(
        name,
        run(
          expression,
          context,
          (result) => literal(result, name),
          () => `The \`let\` "${name}"`,
        ),
      );
    }
    return values;
  };
  let scope: { lets: readonly Let[]; values: Values } | undefined;
  const globals = (lets: readonly Let[]): Values => {
    if (scope?.lets !== lets) scope = { lets, values: bind(lets, docPtr, new Map()) };
    return scope.values;
  };
  return {
    contexts(rules, lets) {
      const values = globals(lets);
      return rules.map((rule) =>
        run(
          substitute(selectionOf(rule.context), values, undefined),
          docPtr,
          (value) => {
            if (value.type !== 'node-set') {
              throw new EngineError({
                code: 'xpath-failed',
                message: `The rule context \`${rule.context}\` (line ${rule.line}) selects a ${value.type}, not nodes.`,
              });
            }
            return Array.from({ length: value.size }, (_, index) => value.node(index));
          },
          () => `The rule context \`${rule.context}\` (line ${rule.line})`,
        ),
      );
    },
    fires(rule, nodes, lets) {
      const outer = globals(lets);
      const fired: boolean[] = [];
      for (const node of nodes) {
        const values = bind(rule.lets, node, outer);
        const current = paths.pathOf(node);
        for (const check of rule.checks) {
          const holds = run(
            `boolean(${substitute(check.test, values, current)})`,
            node,
            (value) => value.type === 'boolean' && value.value,
            () =>
              `The ${check.kind}${check.id ? ` "${check.id}"` : ''} \`${check.test}\` (rule \`${rule.context}\`, line ${rule.line})`,
          );
          fired.push(check.kind === 'assert' ? !holds : holds);
        }
      }
      return fired;
    },
    message(rule, node, parts, lets) {
      const values = bind(rule.lets, node, globals(lets));
      const current = paths.pathOf(node);
      return parts
        .map((part) => {
          if (typeof part === 'string') return part;
          const expression =
            'select' in part
              ? `string(${substitute(part.select, values, current)})`
              : `name(${part.namePath === null ? '.' : substitute(part.namePath, values, current)})`;
          return run(
            expression,
            node,
            (value) => (value.type === 'string' ? value.value : ''),
            () => `A message of the rule \`${rule.context}\``,
          );
        })
        .join('');
    },
  };
}

/** `$name` of a bound let replaced by its value, outside string literals; `current()` by the node's path. */
function substitute(expression: string, values: Values, current: string | undefined): string {
  const blank = withoutLiterals(expression);
  let out = '';
  let from = 0;
  for (const match of blank.matchAll(/\$([\w][\w.-]*(?::[\w][\w.-]*)?)|(?<![\w.-])current\s*\(\s*\)/g)) {
    const at = match.index;
    const name = match[1];
    const replacement = name === undefined ? (current ?? '/') : values.get(name);
    if (replacement === undefined) continue;
    out += `${expression.slice(from, at)}(${replacement})`;
    from = at + match[0].length;
  }
  return out + expression.slice(from);
}

function stringLiteral(text: string): string {
  if (!text.includes("'")) return `'${text}'`;
  if (!text.includes('"')) return `"${text}"`;
  return `concat(${text
    .split("'")
    .map((piece) => `'${piece}'`)
    .join(`, "'", `)})`;
}

/** XPath 1.0 has no exponent: a number is written the way XPath 1.0 reads it back. */
function numberLiteral(value: number): string {
  if (Number.isNaN(value)) return "number('NaN')";
  if (!Number.isFinite(value)) return value > 0 ? '1 div 0' : '-1 div 0';
  return xpathNumberToString(value);
}
