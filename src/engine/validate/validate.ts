import type { XmlDocument } from 'libxml2-wasm';
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
import { validationFailure } from './validation-failure.js';
import { runSchema, type Violation } from './violations.js';

export type { SchemaLanguage } from './schema-language.js';
export type { Violation } from './violations.js';

export interface ValidateResult {
  valid: boolean;
  /** Every violation libxml2 reported, listed or not. */
  total: number;
  /** The first violations, within the output budget (src/limits.ts). */
  violations: Violation[];
  /** Present when violations were left out or a message or path was cut. */
  truncated?: true;
  /**
   * The language that validated, when it is not XSD: an answer without it is XSD's, as every
   * answer was before RELAX NG and DTDs (docs/adr/0038-relax-ng-and-dtd-in-the-xsd-argument.md).
   */
  language?: 'relaxng' | 'dtd';
  /**
   * The prefixes the violations' paths give namespaced elements (prefix → URI), the same a query
   * needs as `namespaces` to select them; absent when no path names one.
   */
  namespaces?: Record<string, string>;
}

export interface ValidateLimits {
  /** Longest chain of schema definitions compiled (MAX_SCHEMA_CHAIN). */
  maxSchemaChain?: number;
}

/** A schema compiled for one validation: how to run it, and how to free it. */
interface Compiled {
  language: SchemaLanguage;
  run(doc: XmlDocument, onViolation: (violation: RawViolation) => void): number;
  dispose(): void;
}

/**
 * Validates against a schema given as text: XSD 1.0, RELAX NG (XML syntax) or a DTD, told apart
 * from the text itself (docs/behaviour.md §2). Nothing the schema points to is fetched.
 */
export function validate(xml: XmlSource, xsd: XmlSource, limits: ValidateLimits = {}): ValidateResult {
  const schema = compile(xsd, limits);
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

function compile(xsd: XmlSource, limits: ValidateLimits): Compiled {
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
    if (languageOfRoot(rootElement(schemaDoc)) === 'relaxng') {
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
