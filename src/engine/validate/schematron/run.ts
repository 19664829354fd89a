import type { XmlDocument } from 'libxml2-wasm';
import { MAX_LISTED_VIOLATIONS, VIOLATION_OUTPUT_CHARS } from '../../../limits.js';
import { lineOf } from '../../libxml2/serialize.js';
import type { NodeRef } from '../../libxml2/tree.js';
import type { PathWriter } from '../../query/node-path.js';
import { cut, type Violation } from '../violations.js';
import { type Evaluator, messageText } from './evaluator.js';
import type { Check, Let, Rule, Schematron } from './model.js';
import { xpath1Evaluator } from './xpath1-rules.js';
import { xpath31Evaluator } from './xpath31-rules.js';

/** A failed assert or a successful report, as the answer lists it. */
export interface Finding extends Violation {
  kind: 'assert' | 'report';
  id?: string;
  flag?: string;
  role?: string;
  /** The test as the schema writes it. */
  test: string;
}

/** What the run covered, and every finding counted by id (by its test where it has none). */
export interface SchematronSummary {
  phase: string;
  rules_fired: number;
  nodes_checked: number;
  by_id: Record<string, number>;
  /**
   * Every finding counted by its `flag` (`fatal`, `warning`, …), or its `role` where it has no
   * flag (schemas write severity in either), "none" where it has neither.
   */
  by_flag: Record<string, number>;
}

export interface SchematronOutcome {
  total: number;
  findings: Finding[];
  truncated: boolean;
  summary: SchematronSummary;
}

interface Fired {
  rule: Rule;
  check: Check;
  node: NodeRef;
  line: number;
  lets: readonly Let[];
}

/**
 * Runs the schema's patterns over the document (docs/behaviour.md §2): within a pattern each node
 * is the context of the first rule whose context matches it, as ISO Schematron says, and every
 * assert that fails and report that succeeds there is counted. Findings are listed in pattern
 * order and, within a pattern, by line, as far as the output budget goes; their messages are
 * evaluated only for those listed.
 */
export function runSchematron(doc: XmlDocument, schema: Schematron, paths: PathWriter): SchematronOutcome {
  const evaluator: Evaluator =
    schema.binding === 'xpath1'
      ? xpath1Evaluator(doc, schema.namespaces)
      : xpath31Evaluator(doc, schema.namespaces, schema.key);
  const checked = new Set<NodeRef>();
  const byId: Record<string, number> = Object.create(null);
  const byFlag: Record<string, number> = Object.create(null);
  let rulesFired = 0;
  const fired: Fired[] = [];
  for (const pattern of schema.patterns) {
    const lets = [...schema.lets, ...pattern.lets];
    const contexts = evaluator.contexts(pattern.rules, lets);
    const claimed = new Set<NodeRef>();
    const inPattern: Fired[] = [];
    pattern.rules.forEach((rule, index) => {
      const nodes = (contexts[index] ?? []).filter((node) => !claimed.has(node));
      for (const node of nodes) {
        claimed.add(node);
        checked.add(node);
      }
      rulesFired += nodes.length;
      const fires = evaluator.fires(rule, nodes, lets);
      fires.forEach((fires, at) => {
        if (!fires) return;
        const check = rule.checks[at % rule.checks.length] as Check;
        const node = nodes[Math.floor(at / rule.checks.length)] as NodeRef;
        const key = check.id ?? check.test;
        byId[key] = (byId[key] ?? 0) + 1;
        const flag = check.flag ?? check.role ?? 'none';
        byFlag[flag] = (byFlag[flag] ?? 0) + 1;
        inPattern.push({ rule, check, node, line: lineOf(node) ?? 0, lets });
      });
    });
    // Document order as SVRL gives it, near enough: by line, rule order kept within one.
    inPattern.sort((a, b) => a.line - b.line);
    fired.push(...inPattern);
  }
  const { findings, truncated } = listed(fired, evaluator, paths);
  return {
    total: fired.length,
    findings,
    truncated,
    summary: {
      phase: schema.phase,
      rules_fired: rulesFired,
      nodes_checked: checked.size,
      by_id: byId,
      by_flag: byFlag,
    },
  };
}

function listed(
  fired: readonly Fired[],
  evaluator: Evaluator,
  paths: PathWriter,
): { findings: Finding[]; truncated: boolean } {
  const findings: Finding[] = [];
  let chars = 0;
  let cutShort = false;
  for (const { rule, check, node, line, lets } of fired) {
    if (findings.length >= MAX_LISTED_VIOLATIONS) break;
    const fullMessage = messageText(check, (parts) => evaluator.message(rule, node, parts, lets));
    const fullPath = paths.pathOf(node);
    const finding: Finding = {
      message: cut(fullMessage),
      path: cut(fullPath),
      line: line > 0 ? line : null,
      kind: check.kind,
      ...(check.id === undefined ? {} : { id: check.id }),
      ...(check.flag === undefined ? {} : { flag: check.flag }),
      ...(check.role === undefined ? {} : { role: check.role }),
      test: cut(check.test),
    };
    // The larger of the answer's two forms, as for the other languages (docs/adr/0049).
    const size = JSON.stringify(finding).length + 1;
    if (chars + size > VIOLATION_OUTPUT_CHARS) break;
    findings.push(finding);
    chars += size;
    if (finding.message !== fullMessage || finding.path !== fullPath || finding.test !== check.test)
      cutShort = true;
  }
  return { findings, truncated: cutShort || findings.length < fired.length };
}
