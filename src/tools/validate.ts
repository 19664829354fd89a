import { z } from 'zod';
import type { Finding, ValidateResult, Violation } from '../engine/validate/validate.js';
import { MAX_LISTED_VIOLATIONS, MAX_VIOLATION_TEXT_CHARS, VIOLATION_OUTPUT_CHARS } from '../limits.js';
import { answered } from './answer.js';
import { answering, type Declares, defineTool, documentArguments, encode, schemaArguments } from './tool.js';

const output = z.object({
  valid: z.boolean(),
  total: z.int().min(0),
  violations: z.array(
    z.object({
      message: z.string(),
      path: z.string().nullable(),
      line: z.int().nullable(),
      // Schematron's (ADR 0053).
      kind: z.enum(['assert', 'report']).optional(),
      id: z.string().optional(),
      flag: z.string().optional(),
      role: z.string().optional(),
      test: z.string().optional(),
    }),
  ),
  truncated: z.literal(true).optional(),
  language: z.enum(['relaxng', 'dtd', 'schematron']).optional(),
  namespaces: z.object({}).catchall(z.string()).optional(),
  schematron: z
    .object({
      phase: z.string(),
      rules_fired: z.int(),
      nodes_checked: z.int(),
      by_id: z.object({}).catchall(z.int()),
      by_flag: z.object({}).catchall(z.int()),
    })
    .optional(),
});

true satisfies Declares<typeof output, ValidateResult>;

export const xmlValidate = defineTool({
  name: 'xml_validate',
  title: 'Validate XML against a schema',
  description:
    'Validate a document against a schema given as text: XSD 1.0, RELAX NG (XML syntax), ISO Schematron or a DTD. Lists the violations (the first 100) with element path and line, and their exact total. Nothing a schema includes or imports is fetched: inline it.',
  input: z.object({
    ...documentArguments,
    ...schemaArguments,
    phase: z.string().describe('Schematron phase id, #DEFAULT or #ALL.').optional(),
  }),
  output,
  async run({ xml, xsd, phase }, { engine, call }) {
    return answering(async () => {
      const result = await engine.run(
        'validate',
        { xml: encode(xml), xsd: encode(xsd), ...(phase === undefined ? {} : { phase }) },
        call,
      );
      if (result.valid)
        return answered({
          body: `Valid: the document conforms to ${theSchema(result)}.${coverage(result)}`,
          facts: { ...result },
        });
      return answered(
        { body: render(result), facts: { ...result }, notes: [truncationNote(result), prefixesNote(result)] },
        { isError: true },
      );
    });
  },
});

function render(result: ValidateResult): string {
  const { total } = result;
  if (result.language === 'schematron') return renderFindings(result);
  const lines = result.violations.map((violation, index) => `${index + 1}. ${describe(violation)}`);
  return [`Invalid: ${total} violation${total === 1 ? '' : 's'} of ${theSchema(result)}.`, ...lines].join(
    '\n',
  );
}

/** What a Schematron run covered, for its verdict's line. */
function coverage({ schematron }: ValidateResult): string {
  if (!schematron) return '';
  const phase = schematron.phase === '#ALL' ? 'all patterns' : `phase "${schematron.phase}"`;
  return ` (${phase}: ${schematron.rules_fired} rule${schematron.rules_fired === 1 ? '' : 's'} fired on ${schematron.nodes_checked} node${schematron.nodes_checked === 1 ? '' : 's'}.)`;
}

/**
 * How many findings carry each flag (or role), so "are there warnings?" or "is anything fatal?"
 * is answered for all of them, listed or not.
 */
function flags({ schematron }: ValidateResult): string {
  const byFlag = Object.entries(schematron?.by_flag ?? {});
  if (byFlag.length === 0 || (byFlag.length === 1 && byFlag[0]?.[0] === 'none')) return '';
  return `; by flag or role: ${byFlag.map(([flag, count]) => `${count} ${flag === 'none' ? 'with neither' : flag}`).join(', ')}`;
}

/**
 * Schematron's findings grouped by id, in the order they first appear: one heading per id with
 * how often it fired in all (`by_id`, exact), its message and test, then each listed place.
 */
function renderFindings(result: ValidateResult): string {
  const findings = result.violations as Finding[];
  const byId = result.schematron?.by_id ?? {};
  const groups = new Map<string, Finding[]>();
  for (const finding of findings) {
    const key = finding.id ?? finding.test;
    groups.set(key, [...(groups.get(key) ?? []), finding]);
  }
  const lines = [
    `Invalid: ${result.total} finding${result.total === 1 ? '' : 's'} of ${theSchema(result)}, ${Object.keys(byId).length} distinct${flags(result)}.${coverage(result)}`,
  ];
  for (const [key, group] of groups) {
    const [first] = group as [Finding, ...Finding[]];
    const what = first.kind === 'assert' ? 'failed assert' : 'successful report';
    const label = [first.flag, first.role].filter(Boolean).join(', ');
    const times = byId[key] ?? group.length;
    lines.push(
      `${first.id ?? 'no id'} (${what}${label ? `, ${label}` : ''}${times > 1 ? `, ${times} times` : ''}): ${first.message}`,
      `  test: ${first.test}`,
      ...group.map(
        (finding) =>
          `  at ${describe({ ...finding, message: finding.message === first.message ? '' : finding.message }).replace(/: $/, '')}`,
      ),
    );
  }
  return lines.join('\n');
}

/**
 * The answer names the language that validated; an XSD answer reads as it always has
 * (docs/adr/0038-relax-ng-and-dtd-in-the-xsd-argument.md).
 */
function theSchema({ language }: ValidateResult): string {
  if (language === 'relaxng') return 'the RELAX NG schema';
  if (language === 'dtd') return 'the DTD';
  if (language === 'schematron') return 'the Schematron schema';
  return 'the schema';
}

function describe(violation: Violation): string {
  const where = [violation.line === null ? null : `line ${violation.line}`, violation.path]
    .filter(Boolean)
    .join(', ');
  return `${where ? `${where}: ` : ''}${violation.message}`;
}

/** The paths' prefixes, so a model can pass them to xml_query and select the element a violation names. */
function prefixesNote({ namespaces, language }: ValidateResult): string {
  if (!namespaces) return '';
  const writers =
    language === 'schematron' ? 'Paths and tests write namespaced names' : 'Paths write namespaced elements';
  return `${writers} with the prefixes "namespaces": ${JSON.stringify(namespaces)}; pass the same to xml_query to select them.`;
}

function truncationNote({ total, violations, truncated, language }: ValidateResult): string {
  if (!truncated) return '';
  const shown = violations.length;
  const left = total - shown;
  const items = language === 'schematron' ? 'findings' : 'violations';
  const texts = language === 'schematron' ? 'messages, tests or paths' : 'messages or paths';
  const what =
    left > 0
      ? `Showing the first ${shown} of ${total} ${items} (${left} left out)`
      : `Showing all ${total} ${items}, with ${texts} over ${MAX_VIOLATION_TEXT_CHARS} characters cut (…)`;
  const next =
    left > 0
      ? 'Fix these and validate again, or validate an extract of the document to see the others.'
      : language === 'schematron'
        ? "A cut test is the rule's own: query the schema for it by its id if you need it whole."
        : 'Query the element with xml_query to see its whole value.';
  return `[${what}: output budget of ${MAX_LISTED_VIOLATIONS} violations / ${VIOLATION_OUTPUT_CHARS} characters. ${next}]`;
}
