import { createHash } from 'node:crypto';
import type { XmlDocument } from 'libxml2-wasm';
import { MAX_SCHEMATRON_ELEMENTS } from '../../limits.js';
import { EngineError } from '../errors.js';
import { validateAgainstDtd } from '../libxml2/dtd.js';
import { validateRelaxNG } from '../libxml2/relaxng.js';
import { validateDocument } from '../libxml2/schema.js';
import { rootElement } from '../libxml2/tree.js';
import type { RawViolation } from '../libxml2/violation-sink.js';
import { parseDocument, toUtf8, withDocument, type XmlSource } from '../parse.js';
import { PathWriter } from '../query/node-path.js';
import { compileDtd } from './compile-dtd.js';
import { compileRelaxNG } from './compile-relaxng.js';
import { compileXsd } from './compile-xsd.js';
import {
  dtdInDoctype,
  isDtdText,
  languageOfRoot,
  refuseCompactSyntax,
  type SchemaLanguage,
} from './schema-language.js';
import type { Schematron } from './schematron/model.js';
import { readSchematron } from './schematron/read-schema.js';
import { type Finding, runSchematron, type SchematronSummary } from './schematron/run.js';
import { schemaTree } from './schematron/schema-tree.js';
import { validationFailure } from './validation-failure.js';
import { runSchema, type Violation } from './violations.js';

export type { SchemaLanguage } from './schema-language.js';
export type { Finding, SchematronSummary } from './schematron/run.js';
export type { Violation } from './violations.js';

export interface ValidateResult {
  valid: boolean;
  /** Every violation libxml2 reported, listed or not. */
  total: number;
  /** The first violations, within the output budget (src/limits.ts); Schematron's carry their id, flag, role and test. */
  violations: Violation[] | Finding[];
  /** Present when violations were left out or a message or path was cut. */
  truncated?: true;
  /**
   * The language that validated, when it is not XSD: an answer without it is XSD's, as every
   * answer was before RELAX NG and DTDs (docs/adr/0038-relax-ng-and-dtd-in-the-xsd-argument.md).
   */
  language?: 'relaxng' | 'dtd' | 'schematron';
  /** Schematron only: the phase run, rules fired, nodes checked, and the findings counted by id. */
  schematron?: SchematronSummary;
  /**
   * The prefixes the violations' paths (and Schematron's tests) give namespaced names (prefix →
   * URI), the same a query needs as `namespaces` to select them; absent when none names one.
   */
  namespaces?: Record<string, string>;
}

export interface ValidateLimits {
  /** Longest chain of schema definitions compiled (MAX_SCHEMA_CHAIN). */
  maxSchemaChain?: number;
}

export interface ValidateOptions {
  /** Schematron's phase: an id, `#DEFAULT` or `#ALL`; refused for the other languages. */
  phase?: string;
}

/** A schema compiled for one validation: how to run it, and how to free it. */
interface Compiled {
  language: Exclude<SchemaLanguage, 'schematron'>;
  run(doc: XmlDocument, onViolation: (violation: RawViolation) => void): number;
  dispose(): void;
}

/**
 * Validates against a schema given as text: XSD 1.0, RELAX NG (XML syntax) or a DTD, told apart
 * from the text itself (docs/behaviour.md §2). Nothing the schema points to is fetched.
 */
export function validate(
  xml: XmlSource,
  xsd: XmlSource,
  limits: ValidateLimits = {},
  options: ValidateOptions = {},
): ValidateResult {
  const schema = compile(xsd, limits, options);
  if ('patterns' in schema) return validateSchematron(xml, schema);
  if (options.phase !== undefined) {
    schema.dispose();
    throw new EngineError({
      code: 'invalid-argument',
      message: `The \`phase\` argument applies to Schematron only, and \`xsd\` holds ${schema.language === 'xsd' ? 'an XML Schema' : schema.language === 'dtd' ? 'a DTD' : 'a RELAX NG schema'}: leave \`phase\` out.`,
    });
  }
  try {
    return withDocument(xml, 'validate', (doc): ValidateResult => {
      // A path names a namespaced element with a prefix, as a query would write it (`/ns1:drumkit_info/…`),
      // where libxml2's own writes `/*/*[8]`; the answer says which prefixes it chose.
      const paths = new PathWriter({}, { bindUnbound: true });
      const outcome = runSchema(
        (onViolation) => schema.run(doc, onViolation),
        (node) => paths.pathOf(node),
      );
      const language = schema.language === 'xsd' ? {} : { language: schema.language };
      if (outcome.kind === 'failed') throw validationFailure(outcome.reports, xsd);
      if (outcome.kind === 'valid') return { valid: true, total: 0, violations: [], ...language };
      const { total, violations, truncated } = outcome;
      const namespaces =
        Object.keys(paths.chosenBindings).length > 0 ? { namespaces: { ...paths.chosenBindings } } : {};
      return {
        valid: false,
        total,
        violations,
        ...(truncated ? { truncated: true } : {}),
        ...language,
        ...namespaces,
      };
    });
  } finally {
    schema.dispose();
  }
}

/** Schematron's rules over the document, answered as the other languages are, with what they found. */
function validateSchematron(xml: XmlSource, schema: Schematron): ValidateResult {
  return withDocument(xml, 'query', (doc): ValidateResult => {
    const paths = new PathWriter(schema.namespaces, { bindUnbound: true });
    const { total, findings, truncated, summary } = runSchematron(doc, schema, paths);
    const namespaces = usedBindings(findings, { ...schema.namespaces, ...paths.chosenBindings });
    return {
      valid: total === 0,
      total,
      violations: findings,
      ...(truncated ? { truncated: true } : {}),
      language: 'schematron',
      ...(Object.keys(namespaces).length > 0 ? { namespaces } : {}),
      schematron: summary,
    };
  });
}

/**
 * The bindings the listed findings' prefixes need, and no others: their paths' and their tests'
 * (a test names the children the next query reads, `cbc:Percent` under a path's
 * `cac:ClassifiedTaxCategory`: a model trying an invoice had to find that URI itself).
 */
function usedBindings(
  findings: readonly Finding[],
  bindings: Record<string, string>,
): Record<string, string> {
  const used: Record<string, string> = {};
  for (const { path, test } of findings) {
    for (const [, prefix] of `${path ?? ''} ${test ?? ''}`.matchAll(PREFIXED_NAME)) {
      const uri = bindings[prefix as string];
      if (uri !== undefined) used[prefix as string] = uri;
    }
  }
  return used;
}

/** A prefix before `:` and a name or `*` (not an axis before `::`, not the end of a longer name). */
const PREFIXED_NAME = /(?<![\w.$-])([A-Za-z_][\w.-]*):(?=[A-Za-z_*])/g;

function compile(xsd: XmlSource, limits: ValidateLimits, options: ValidateOptions): Compiled | Schematron {
  const bytes = toUtf8(xsd);
  // A DTD pasted with the `<!DOCTYPE r [ … ]>` around it is read as the declarations inside.
  const declarations = dtdInDoctype(bytes) ?? (isDtdText(bytes) ? bytes : undefined);
  if (declarations) {
    const dtd = compileDtd(declarations);
    return {
      language: 'dtd',
      run: (doc, onViolation) => validateAgainstDtd(dtd, doc, onViolation),
      dispose: () => dtd.dispose(),
    };
  }
  refuseCompactSyntax(bytes);
  const schemaDoc = parseDocument(bytes, 'validate', 'xsd');
  try {
    const language = languageOfRoot(rootElement(schemaDoc));
    if (language === 'schematron') {
      const key = createHash('sha256').update(bytes).digest('base64');
      return readSchematron(schemaTree(rootElement(schemaDoc), MAX_SCHEMATRON_ELEMENTS), options.phase, key);
    }
    if (language === 'relaxng') {
      const grammar = compileRelaxNG(schemaDoc);
      return {
        language: 'relaxng',
        run: (doc, onViolation) => validateRelaxNG(grammar, doc, onViolation),
        dispose: () => grammar.dispose(),
      };
    }
    const validator = compileXsd(schemaDoc, limits.maxSchemaChain);
    return {
      language: 'xsd',
      run: (doc, onViolation) => validateDocument(validator, doc, onViolation),
      dispose: () => validator.dispose(),
    };
  } finally {
    schemaDoc.dispose();
  }
}
