import { MAX_XPATH_OPERATIONS } from '../../../limits.js';
import type { DocumentRef, NodeRef } from '../../libxml2/tree.js';
import { evaluateXPath, evaluateXPathAtNodes, isXPathFailure } from '../../libxml2/xpath.js';
import { selectionOf } from './evaluator.js';
import type { Check, Rule } from './model.js';
import { type Xpath1Test, xpath1Test } from './xpath1-tests.js';

/*
 * The tests of an XPath 3.1 rule that XPath 1.0 answers alike (xpath1-tests.ts), evaluated by
 * libxml2 on each context node: it walks its own tree, where fontoxpath reaches each node through
 * the DOM view (ADR 0053, Addendum 2). The EN 16931 rules' root rule asks 300 such questions of
 * an element with 1,200 invoice lines as children; fontoxpath passed each line for each.
 */

const forms = new WeakMap<Check | Rule, Xpath1Test | null>();

/** The check's test as XPath 1.0, or null; read once per check. */
function formOf(check: Check, namespaces: Record<string, string>): Xpath1Test | null {
  let form = forms.get(check);
  if (form === undefined) {
    form = xpath1Test(check.test, namespaces);
    forms.set(check, form);
  }
  return form;
}

/**
 * Which of the checks libxml2 takes on these nodes: those XPath 1.0 can say, except a test with a
 * path from the root when there are several nodes (fontoxpath then evaluates that path once for
 * all of them, hoisted-paths.ts, where libxml2 would walk the document once per node).
 */
export function routedChecks(
  checks: readonly Check[],
  nodeCount: number,
  namespaces: Record<string, string>,
): (Xpath1Test | null)[] {
  return checks.map((check) => {
    const form = formOf(check, namespaces);
    return form !== null && (!form.absolute || nodeCount === 1) ? form : null;
  });
}

/**
 * Questions asked in one libxml2 expression at most (tests and guards). libxml2 evaluates a
 * call's arguments and an `or`'s operands by recursion, one frame each, on a 64 KiB stack
 * (stack-guard.ts): EN 16931's root rule as one `concat` of ~300 arguments ran into its end.
 */
const QUESTIONS_PER_EXPRESSION = 12;

/**
 * For each node, the value of each test (in the order given), or null when libxml2 failed or a
 * guard found a value the languages read differently on some node: the caller then evaluates the
 * tests with fontoxpath, whose answer (or error) is the one to give.
 */
export function xpath1Values(
  docPtr: DocumentRef,
  tests: readonly Xpath1Test[],
  nodes: readonly NodeRef[],
  namespaces: Record<string, string>,
  answered: Map<string, boolean> = new Map(),
): boolean[][] | null {
  if (!documentAlike(docPtr, tests, namespaces, answered)) return null;
  const answers: boolean[][] = nodes.map(() => []);
  for (const chunk of chunks(tests)) {
    // One string per node: a digit per test, then one per guard (all must be 0).
    const questions = [...chunk.map((test) => test.expression), ...chunk.flatMap((test) => test.guards)];
    const expression = `concat(${questions.map((question) => `number(boolean(${question}\n))`).join(', ')}, '')`;
    const values = evaluateXPathAtNodes(
      docPtr,
      expression,
      namespaces,
      MAX_XPATH_OPERATIONS,
      nodes,
      (value) => (value.type === 'string' ? value.value : ''),
    );
    if (isXPathFailure(values)) return null;
    for (const [index, value] of values.entries()) {
      if (value.length !== questions.length || value.includes('1', chunk.length)) return null;
      answers[index]?.push(...Array.from(value.slice(0, chunk.length), (digit) => digit === '1'));
    }
  }
  return answers;
}

/** The tests in order, in groups of at most QUESTIONS_PER_EXPRESSION questions (one test at least). */
function chunks(tests: readonly Xpath1Test[]): Xpath1Test[][] {
  const groups: Xpath1Test[][] = [];
  let group: Xpath1Test[] = [];
  let questions = 0;
  for (const test of tests) {
    const asked = 1 + test.guards.length;
    if (group.length > 0 && questions + asked > QUESTIONS_PER_EXPRESSION) {
      groups.push(group);
      group = [];
      questions = 0;
    }
    group.push(test);
    questions += asked;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * The nodes a rule's context selects, by libxml2 where XPath 1.0 selects the same (a path or a
 * union of paths it reads alike), or null: fontoxpath then selects them. A pattern's contexts
 * such as `//*[ends-with(name(), 'Amount')]` walk the whole document, which fontoxpath does node
 * by node through the view.
 */
export function xpath1Selection(
  docPtr: DocumentRef,
  rule: Rule,
  namespaces: Record<string, string>,
  answered: Map<string, boolean> = new Map(),
): NodeRef[] | null {
  let form = forms.get(rule);
  if (form === undefined) {
    form = xpath1Test(selectionOf(rule.context), namespaces);
    forms.set(rule, form);
  }
  if (form === null || form.guards.length > 0 || !documentAlike(docPtr, [form], namespaces, answered))
    return null;
  const nodes = evaluateXPath(docPtr, form.expression, namespaces, MAX_XPATH_OPERATIONS, (value) => {
    if (value.type !== 'node-set') return null;
    return Array.from({ length: value.size }, (_, index) => value.node(index));
  });
  return nodes === null || isXPathFailure(nodes) ? null : nodes;
}

/**
 * Whether no document guard of the tests finds a node the languages could read differently.
 * `answered` keeps each guard's answer for the call: rules share them, and the document is the same.
 */
function documentAlike(
  docPtr: DocumentRef,
  tests: readonly Xpath1Test[],
  namespaces: Record<string, string>,
  answered: Map<string, boolean>,
): boolean {
  for (const test of tests) {
    for (const guard of test.documentGuards) {
      let differs = answered.get(guard);
      if (differs === undefined) {
        const value = evaluateXPath(docPtr, `boolean(${guard})`, namespaces, MAX_XPATH_OPERATIONS, (read) =>
          read.type === 'boolean' ? read.value : true,
        );
        differs = value !== false;
        answered.set(guard, differs);
      }
      if (differs) return false;
    }
  }
  return true;
}
