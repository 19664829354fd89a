import { MAX_SCHEMATRON_CHECKS } from '../../../limits.js';
import { EngineError } from '../../errors.js';
import type { Binding, Check, Let, MessagePart, Pattern, Rule, Schematron } from './model.js';
import { elementsOf, type SchemaElement } from './schema-tree.js';

/*
 * A Schematron schema's elements read into the rules run.ts evaluates (docs/behaviour.md §2):
 * `ns`, `let` (schema, phase, pattern, rule), `pattern`, `rule`, `assert`, `report`, abstract
 * rules (`extends rule=`), abstract patterns (`is-a` with `param`), `phase`, `diagnostics`,
 * messages with `value-of` and `name`. What would need a file or XSLT is refused in a sentence.
 */

const XPATH_31_BINDINGS = new Set(['xslt2', 'xslt3', 'xpath2', 'xpath3', 'xpath31']);
const XPATH_1_BINDINGS = new Set(['xslt', 'xpath']);

/** Functions that read something other than the document (or need XSLT's state) are refused, naming them. */
const REFUSED_FUNCTIONS =
  /(?<![\w.-])(document|doc|doc-available|collection|uri-collection|unparsed-text|unparsed-text-lines|unparsed-text-available|environment-variable|available-environment-variables|key|system-property|transform|load-xquery-module)\s*\(/;

function fail(message: string): never {
  throw new EngineError({ code: 'invalid-schema', message });
}

function bindingOf(schema: SchemaElement): Binding {
  const given = schema.attributes.queryBinding;
  if (given === undefined) return 'xpath1';
  const binding = given.trim().toLowerCase();
  if (XPATH_1_BINDINGS.has(binding)) return 'xpath1';
  if (XPATH_31_BINDINGS.has(binding)) return 'xpath31';
  return fail(
    `The Schematron schema's queryBinding is "${given}", which is not evaluated here: use "xslt" (XPath 1.0) or "xslt2", "xslt3", "xpath2", "xpath3", "xpath31" (XPath 3.1).`,
  );
}

/** Every element of the schema, depth first, to refuse what no rule may use wherever it stands. */
function* everyElement(element: SchemaElement): Generator<SchemaElement> {
  const stack: SchemaElement[] = [element];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    yield next;
    for (let index = next.children.length - 1; index >= 0; index--) {
      const child = next.children[index];
      if (child !== undefined && typeof child !== 'string') stack.push(child);
    }
  }
}

const EXPRESSION_ATTRIBUTES = ['context', 'test', 'select', 'path', 'value'] as const;

function refuseOutside(schema: SchemaElement): void {
  for (const element of everyElement(schema)) {
    if (element.name === 'include') {
      fail(
        `The Schematron schema includes \`${element.attributes.href ?? '?'}\` (line ${element.line}); nothing is ever fetched. Paste the included part in its place and call again.`,
      );
    }
    if (element.name === 'extends' && element.attributes.href !== undefined) {
      fail(
        `The Schematron rule at line ${element.line} extends \`${element.attributes.href}\`, another file; nothing is ever fetched. Paste the abstract rule into this schema and extend it by \`rule="…"\`.`,
      );
    }
    if (element.name === 'let' && element.attributes.value === undefined) {
      fail(
        `The \`let\` named "${element.attributes.name ?? '?'}" at line ${element.line} has no \`value\`: a variable built from element content is XSLT, not evaluated here. Give it a \`value\` expression.`,
      );
    }
    for (const attribute of EXPRESSION_ATTRIBUTES) {
      const expression = element.attributes[attribute];
      const refused = expression === undefined ? null : REFUSED_FUNCTIONS.exec(withoutLiterals(expression));
      if (refused) {
        fail(
          `The Schematron schema calls \`${refused[1]}()\` in \`${attribute}\` at line ${element.line}; ${refused[1] === 'key' || refused[1] === 'system-property' || refused[1] === 'transform' ? 'that is XSLT, and rules here are evaluated as XPath' : 'it would read another document or the environment, and nothing is ever fetched'}. Rewrite the rule over the document itself and call again.`,
        );
      }
    }
  }
}

/** String literals blanked out, so a function name inside quotes is text, not a call. */
export function withoutLiterals(expression: string): string {
  return expression.replace(/"(?:[^"]|"")*"|'(?:[^']|'')*'/g, (literal) => ' '.repeat(literal.length));
}

function letsOf(element: SchemaElement): Let[] {
  return elementsOf(element, 'let').map(letOf);
}

function letOf(element: SchemaElement): Let {
  return {
    name: element.attributes.name ?? fail(`A \`let\` at line ${element.line} has no \`name\`.`),
    value: element.attributes.value as string,
  };
}

/** A message's parts; text of other elements inside it (`emph`, `span`, `dir`) is kept as text. */
function messageOf(element: SchemaElement): MessagePart[] {
  const parts: MessagePart[] = [];
  for (const child of element.children) {
    if (typeof child === 'string') parts.push(child);
    else if (child.name === 'value-of') {
      parts.push({
        select: child.attributes.select ?? fail(`A \`value-of\` at line ${child.line} has no \`select\`.`),
      });
    } else if (child.name === 'name') parts.push({ namePath: child.attributes.path ?? null });
    else parts.push(...messageOf(child));
  }
  return parts;
}

interface Reading {
  abstractRules: Map<string, SchemaElement>;
  diagnostics: Map<string, MessagePart[]>;
  checks: number;
}

/** A rule's lets and checks, an `extends` replaced by the abstract rule's own, as if written in its place. */
function ruleBody(
  rule: SchemaElement,
  reading: Reading,
  seen: readonly string[],
): { lets: Let[]; checks: Check[] } {
  const lets: Let[] = [];
  const checks: Check[] = [];
  for (const child of elementsOf(rule)) {
    if (child.name === 'let') lets.push(letOf(child));
    else if (child.name === 'assert' || child.name === 'report') {
      if (++reading.checks > MAX_SCHEMATRON_CHECKS) {
        throw new EngineError({
          code: 'limit-exceeded',
          message: `The Schematron schema in \`xsd\` holds more than ${MAX_SCHEMATRON_CHECKS.toLocaleString('en-US')} asserts and reports (abstract rules counted where they are extended), more than one call checks. Split it into phases or smaller schemas.`,
        });
      }
      checks.push(checkOf(child, reading));
    } else if (child.name === 'extends') {
      const id = child.attributes.rule ?? fail(`An \`extends\` at line ${child.line} names no \`rule\`.`);
      if (seen.includes(id)) {
        fail(
          `The abstract rule "${id}" extends itself (through ${[...seen, id].join(' → ')}): break the cycle.`,
        );
      }
      const abstract =
        reading.abstractRules.get(id) ??
        fail(`The rule at line ${child.line} extends "${id}", and no abstract rule has that id.`);
      const body = ruleBody(abstract, reading, [...seen, id]);
      lets.push(...body.lets);
      checks.push(...body.checks);
    }
  }
  return { lets, checks };
}

function checkOf(element: SchemaElement, reading: Reading): Check {
  const { test, id, flag, role, diagnostics } = element.attributes;
  if (test === undefined) fail(`The ${element.name} at line ${element.line} has no \`test\`.`);
  return {
    kind: element.name as 'assert' | 'report',
    test,
    ...(id === undefined ? {} : { id }),
    ...(flag === undefined ? {} : { flag }),
    ...(role === undefined ? {} : { role }),
    message: messageOf(element),
    diagnostics: (diagnostics ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map(
        (name) =>
          reading.diagnostics.get(name) ??
          fail(
            `The ${element.name} at line ${element.line} names the diagnostic "${name}", which is not defined.`,
          ),
      ),
  };
}

/**
 * An abstract pattern's copy for one `is-a`: every `$name` of a `param` in its attributes replaced
 * by the param's value (the longest names first, so `$ab` is not read as `$a` followed by `b`).
 */
function instantiate(abstract: SchemaElement, params: ReadonlyMap<string, string>): SchemaElement {
  const names = [...params.keys()].sort((a, b) => b.length - a.length);
  if (names.length === 0) return abstract;
  const pattern = new RegExp(
    `\\$(${names.map((name) => name.replace(/[.\\-]/g, '\\$&')).join('|')})(?![\\w.-])`,
    'g',
  );
  const copy = (element: SchemaElement): SchemaElement => {
    const attributes: Record<string, string> = Object.create(null);
    for (const [key, value] of Object.entries(element.attributes)) {
      attributes[key] = value.replace(pattern, (_, name: string) => params.get(name) as string);
    }
    return {
      ...element,
      attributes,
      children: element.children.map((child) => (typeof child === 'string' ? child : copy(child))),
    };
  };
  return copy(abstract);
}

/** The patterns a phase activates: `#ALL`, `#DEFAULT` (the schema's defaultPhase, else all) or a phase's id. */
function choosePhase(
  schema: SchemaElement,
  phase: string | undefined,
): { id: string; lets: Let[]; active: Set<string> | null } {
  const phases = elementsOf(schema, 'phase');
  const wanted =
    phase === undefined || phase === '#DEFAULT' ? (schema.attributes.defaultPhase ?? '#ALL') : phase;
  if (wanted === '#ALL') return { id: '#ALL', lets: [], active: null };
  const chosen = phases.find((element) => element.attributes.id === wanted);
  if (chosen === undefined) {
    const known = phases.map((element) => `"${element.attributes.id}"`);
    throw new EngineError({
      code: 'invalid-argument',
      message: `The Schematron schema has no phase "${wanted}"${phase === undefined || phase === '#DEFAULT' ? ' (its defaultPhase)' : ''}. Its phases: ${known.length > 0 ? known.join(', ') : 'none'}; or pass \`phase\`: "#ALL" to run every pattern.`,
    });
  }
  return {
    id: wanted,
    lets: letsOf(chosen),
    active: new Set(elementsOf(chosen, 'active').map((element) => element.attributes.pattern ?? '')),
  };
}

/** The schema to run: its binding, namespaces, lets and the chosen phase's patterns with their rules. */
export function readSchematron(schema: SchemaElement, phase: string | undefined, key: string): Schematron {
  if (schema.name !== 'schema') {
    fail(
      `The \`xsd\` argument's root is a Schematron \`${schema.name}\`; a Schematron schema's root is \`schema\`.`,
    );
  }
  const binding = bindingOf(schema);
  refuseOutside(schema);
  const namespaces: Record<string, string> = Object.create(null);
  for (const ns of elementsOf(schema, 'ns')) {
    const { prefix, uri } = ns.attributes;
    if (prefix === undefined || uri === undefined)
      fail(`The \`ns\` at line ${ns.line} needs both \`prefix\` and \`uri\`.`);
    namespaces[prefix] = uri;
  }
  const diagnostics = new Map<string, MessagePart[]>();
  for (const group of elementsOf(schema, 'diagnostics')) {
    for (const diagnostic of elementsOf(group, 'diagnostic')) {
      if (diagnostic.attributes.id !== undefined)
        diagnostics.set(diagnostic.attributes.id, messageOf(diagnostic));
    }
  }
  const allPatterns = elementsOf(schema, 'pattern');
  const abstractRules = new Map<string, SchemaElement>();
  const abstractPatterns = new Map<string, SchemaElement>();
  for (const pattern of allPatterns) {
    if (pattern.attributes.abstract === 'true' && pattern.attributes.id !== undefined) {
      abstractPatterns.set(pattern.attributes.id, pattern);
    }
  }
  // Abstract rules may stand in any pattern (or in `rules`), abstract or not.
  for (const element of everyElement(schema)) {
    if (
      element.name === 'rule' &&
      element.attributes.abstract === 'true' &&
      element.attributes.id !== undefined
    ) {
      abstractRules.set(element.attributes.id, element);
    }
  }
  const chosen = choosePhase(schema, phase);
  const reading: Reading = { abstractRules, diagnostics, checks: 0 };
  const patterns: Pattern[] = [];
  for (const written of allPatterns) {
    if (written.attributes.abstract === 'true') continue;
    const id = written.attributes.id;
    if (chosen.active !== null && (id === undefined || !chosen.active.has(id))) continue;
    const isA = written.attributes['is-a'];
    const pattern =
      isA === undefined
        ? written
        : instantiate(
            abstractPatterns.get(isA) ??
              fail(`The pattern at line ${written.line} is-a "${isA}", and no abstract pattern has that id.`),
            new Map(
              elementsOf(written, 'param').map((param) => [
                param.attributes.name ?? '',
                param.attributes.value ?? '',
              ]),
            ),
          );
    const rules: Rule[] = [];
    for (const rule of elementsOf(pattern, 'rule')) {
      if (rule.attributes.abstract === 'true') continue;
      const context = rule.attributes.context ?? fail(`The rule at line ${rule.line} has no \`context\`.`);
      rules.push({ context, line: rule.line, ...ruleBody(rule, reading, []) });
    }
    patterns.push({ ...(id === undefined ? {} : { id }), lets: letsOf(pattern), rules });
  }
  return { binding, namespaces, lets: [...letsOf(schema), ...chosen.lets], patterns, phase: chosen.id, key };
}
