/*
 * A Schematron schema as the engine runs it (docs/adr/0053-schematron-on-the-servers-own-engines.md):
 * what `read-schema.ts` makes of the schema's text once abstract rules and abstract patterns are
 * resolved and the phase chosen, and what `run.ts` evaluates.
 */

/** Which engine evaluates the expressions: libxml2's XPath 1.0, or fontoxpath's XPath 3.1. */
export type Binding = 'xpath1' | 'xpath31';

/** `<let name value>`: evaluated before the expressions that follow it may read `$name`. */
export interface Let {
  name: string;
  value: string;
}

/** A message's parts: text, `<value-of select>`, `<name path?>` (null: the context node's name). */
export type MessagePart = string | { select: string } | { namePath: string | null };

export interface Check {
  kind: 'assert' | 'report';
  test: string;
  id?: string;
  flag?: string;
  role?: string;
  message: MessagePart[];
  /** The `diagnostic`s it names, each a message of its own. */
  diagnostics: MessagePart[][];
}

export interface Rule {
  context: string;
  /** The schema's line, for errors that name a rule. */
  line: number;
  lets: Let[];
  checks: Check[];
}

export interface Pattern {
  id?: string;
  lets: Let[];
  rules: Rule[];
}

export interface Schematron {
  binding: Binding;
  /** prefix → URI from `<ns>`. */
  namespaces: Record<string, string>;
  /** The schema's and the chosen phase's lets, evaluated with the document node as context. */
  lets: Let[];
  /** The patterns of the chosen phase, in the schema's order. */
  patterns: Pattern[];
  /** The phase that ran: an id, or `#ALL`. */
  phase: string;
  /** Names the schema's text (a digest): a worker keeps one schema's compiled rules. */
  key: string;
}
