import type { XmlDocument } from 'libxml2-wasm';
import { EngineError } from '../../errors.js';
import type { NodeRef } from '../../libxml2/tree.js';
import { compiledExpressions, evaluateXPath31Plain, type PlainItem } from '../../libxml2/xpath31-view.js';
import { xpath31View } from '../../query/xpath31.js';
import { forgetPatterns } from '../../query/xsd-regex.js';
import { type Evaluator, selectionOf, withCurrent } from './evaluator.js';
import { hoistAbsolutePaths } from './hoisted-paths.js';
import type { Check, Let, Rule } from './model.js';
import { routedChecks, xpath1Selection, xpath1Values } from './xpath1-routed.js';

/*
 * queryBinding xslt2, xslt3, xpath2, xpath3, xpath31: fontoxpath over the same parse through the
 * DOM view of ADR 0033. A rule is one evaluation for all its context nodes: its lets and tests
 * inlined as XPath `let` clauses, the nodes passed in as `$oxml-nodes`. Compiling is most of the
 * work (the EN 16931 rules: ~3 s to compile, ~0.3 s to run on an invoice), so a worker keeps the
 * compiled rules of the last schema it ran, and only those (ADR 0053).
 */

/** The schema whose compiled rules fontoxpath's cache holds on this worker. */
let compiledFor: string | undefined;

/** Compiled expressions kept at most, whatever the schema: one schema of 50,000 checks fits. */
const MAX_KEPT_EXPRESSIONS = 5_000;
/**
 * Characters of compiled expressions kept at most. What fontoxpath keeps of an expression grows
 * with its length (ADR 0048 measured ~540 KiB for 1,900 characters), and what a worker keeps
 * costs the calls of every session it runs next: about three times the EN 16931 rules' 138,000.
 * A schema past it is compiled again on each call, as before ADR 0053.
 */
const MAX_KEPT_CHARS = 400_000;
/** Characters of the expressions compiled into the cache since it was last emptied. */
let keptChars = 0;

/** Empties fontoxpath's cache unless it holds `schemaKey`'s expressions, within the bounds. */
function keepOnly(schemaKey: string): void {
  const cache = compiledExpressions();
  if (cache === undefined) return;
  if (compiledFor !== schemaKey || overBounds(cache)) forgetCompiled(cache);
  compiledFor = schemaKey;
}

/** Counts an expression the cache took in this evaluation; empties the cache past a bound. */
function counted(expression: string, sizeBefore: number): void {
  const cache = compiledExpressions();
  if (cache === undefined || cache.size === sizeBefore) return;
  keptChars += expression.length;
  if (overBounds(cache)) forgetCompiled(cache);
}

const overBounds = (cache: Map<unknown, unknown>) =>
  cache.size > MAX_KEPT_EXPRESSIONS || keptChars > MAX_KEPT_CHARS;

function forgetCompiled(cache: Map<unknown, unknown>): void {
  cache.clear();
  keptChars = 0;
}

const CURRENT = '$oxml-current';

function withLets(lets: readonly Let[], body: string): string {
  return lets.reduceRight((inner, { name, value }) => `let $${name} := (${value}\n) return ${inner}`, body);
}

export function xpath31Evaluator(
  doc: XmlDocument,
  namespaces: Record<string, string>,
  schemaKey: string,
): Evaluator {
  keepOnly(schemaKey);
  const view = xpath31View(doc);
  /** The document guards of the tests libxml2 takes (xpath1-tests.ts), each asked once per call. */
  const guardsAnswered = new Map<string, boolean>();
  const evaluate = (expression: string, nodes: readonly NodeRef[], what: () => string): PlainItem[] => {
    const sizeBefore = compiledExpressions()?.size ?? 0;
    try {
      return evaluateXPath31Plain(view, expression, namespaces, { 'oxml-nodes': nodes }, true);
    } catch (error) {
      if (!(error instanceof Error) || error instanceof RangeError) throw error;
      throw new EngineError({
        code: 'xpath-failed',
        message: `${what()} could not be evaluated as XPath 3.1: ${error.message.replace(/\s+/g, ' ').trim().slice(0, 400)}`,
      });
    } finally {
      forgetPatterns();
      counted(expression, sizeBefore);
    }
  };
  const perNode = (rule: Rule, lets: readonly Let[], body: string) =>
    withLets(
      lets,
      `$oxml-nodes?* ! (let ${CURRENT} := . return ${withLets(
        rule.lets.map((item) => ({ ...item, value: withCurrent(item.value, CURRENT) })),
        body,
      )})`,
    );
  /** Each check's test on each node (node-major), by fontoxpath: one evaluation for the rule. */
  const testValues = (
    rule: Rule,
    checks: readonly Check[],
    nodes: readonly NodeRef[],
    lets: readonly Let[],
  ) => {
    const hoisted = hoistAbsolutePaths(checks.map((check) => withCurrent(check.test, CURRENT)));
    const tests = hoisted.tests.map((test) => `boolean((${test}\n))`);
    return evaluate(perNode(rule, [...lets, ...hoisted.lets], `(${tests.join(', ')})`), nodes, () => {
      // Which check failed, so the sentence names it: each alone, on the same nodes.
      for (const check of checks) {
        try {
          evaluateXPath31Plain(
            view,
            perNode(rule, lets, `boolean((${withCurrent(check.test, CURRENT)}\n))`),
            namespaces,
            {
              'oxml-nodes': nodes,
            },
          );
        } catch {
          return `The ${check.kind}${check.id ? ` "${check.id}"` : ''} \`${check.test}\` (rule \`${rule.context}\`, line ${rule.line})`;
        }
      }
      return `The rule \`${rule.context}\` (line ${rule.line})`;
    });
  };
  /** The context nodes of each rule, selected by fontoxpath in one evaluation. */
  const fontoxpathContexts = (rules: readonly Rule[], lets: readonly Let[]): NodeRef[][] => {
    const selections = rules.map((rule) => `(${selectionOf(rule.context)}\n), 0`);
    const items = evaluate(
      withLets(lets, `(${selections.join(', ')})`),
      [],
      () => 'A rule context of the pattern',
    );
    const groups: NodeRef[][] = [[]];
    for (const item of items) {
      if (typeof item === 'object') groups[groups.length - 1]?.push(item.node);
      else if (item === 0) groups.push([]);
      else {
        throw new EngineError({
          code: 'xpath-failed',
          message: `A rule context of the pattern selects values, not nodes: a context must match nodes (\`${rules.map((rule) => rule.context).join('`, `')}\`).`,
        });
      }
    }
    return groups.slice(0, rules.length);
  };
  return {
    contexts(rules, lets) {
      const groups = rules.map((rule) => xpath1Selection(view.docPtr, rule, namespaces, guardsAnswered));
      const left = rules.filter((_, index) => groups[index] === null);
      if (left.length === 0) return groups as NodeRef[][];
      const selected = fontoxpathContexts(left, lets);
      return groups.map((group) => group ?? (selected.shift() as NodeRef[]));
    },
    fires(rule, nodes, lets) {
      if (rule.checks.length === 0 || nodes.length === 0) return [];
      const routed = routedChecks(rule.checks, nodes.length, namespaces);
      const forms = routed.filter((form) => form !== null);
      const byLibxml2 =
        forms.length === 0 ? null : xpath1Values(view.docPtr, forms, nodes, namespaces, guardsAnswered);
      const rest =
        byLibxml2 === null ? rule.checks : rule.checks.filter((_, index) => routed[index] === null);
      const restValues = rest.length === 0 ? [] : testValues(rule, rest, nodes, lets);
      const fires: boolean[] = [];
      nodes.forEach((_, node) => {
        let fromLibxml2 = 0;
        let fromRest = node * rest.length;
        rule.checks.forEach((check, index) => {
          const value =
            byLibxml2 !== null && routed[index] !== null
              ? byLibxml2[node]?.[fromLibxml2++] === true
              : restValues[fromRest++] === true;
          fires.push(check.kind === 'assert' ? !value : value);
        });
      });
      return fires;
    },
    message(rule, node, parts, lets) {
      const expressions = parts.flatMap((part) =>
        typeof part === 'string'
          ? []
          : 'select' in part
            ? [`string-join((${withCurrent(part.select, CURRENT)}\n) ! string(.), ' ')`]
            : [`name(${part.namePath === null ? '.' : withCurrent(part.namePath, CURRENT)})`],
      );
      const values =
        expressions.length === 0
          ? []
          : evaluate(
              perNode(rule, lets, `(${expressions.join(', ')})`),
              [node],
              () => `A message of the rule \`${rule.context}\` (line ${rule.line})`,
            );
      let next = 0;
      return parts.map((part) => (typeof part === 'string' ? part : String(values[next++] ?? ''))).join('');
    },
  };
}
