import { LARGE_DOCUMENT_BYTES, MAX_CACHED_DOCUMENT_BYTES, MAX_SCHEMA_CHAIN } from '../../limits.js';
import { type CheckResult, check } from '../check.js';
import { type FormatOptions, formatToBytes } from '../format.js';
import { type InspectResult, inspectDocument } from '../inspect/inspect.js';
import { parseDocument, withDocument } from '../parse.js';
import { dtdDefaultsNote } from '../query/dtd-defaults-note.js';
import { type ExplainedResult, explainedQuery } from '../query/namespace-hints.js';
import {
  type BatchEntry,
  type OutputBudget,
  type QueryOutput,
  queryBatch,
  queryDocument,
} from '../query/query.js';
import type { Namespaces } from '../query/xpath-guard.js';
import { type ValidateResult, validate } from '../validate/validate.js';
import { DocumentCache } from './document-cache.js';

/**
 * The engine's operations as the worker runs them. Documents arrive as UTF-8 bytes (they are
 * transferred to the worker, not cloned); every other argument is plain data. `cacheAs` names
 * the client whose parsed documents may be kept for its next call (absent: parse and free).
 */
export interface Operations {
  query: {
    args: {
      xml: Uint8Array;
      xpath: string;
      namespaces: Namespaces;
      budget?: OutputBudget;
      output?: QueryOutput;
      cacheAs?: string;
    };
    result: ExplainedResult;
  };
  /** xml_query with `xpath` as an array: every expression against one parse, answered in order. */
  batch: {
    args: {
      xml: Uint8Array;
      xpath: string[];
      namespaces: Namespaces;
      budget?: OutputBudget;
      output?: QueryOutput;
      cacheAs?: string;
    };
    result: { results: BatchEntry[] };
  };
  inspect: { args: { xml: Uint8Array; maxChars?: number; cacheAs?: string }; result: InspectResult };
  check: { args: { xml: Uint8Array }; result: CheckResult };
  validate: { args: { xml: Uint8Array; xsd: Uint8Array; phase?: string }; result: ValidateResult };
  /** The formatted text comes back as UTF-8 bytes, transferred like the document going in. */
  format: { args: { xml: Uint8Array } & FormatOptions; result: { xml: Uint8Array } };
}

export type OperationName = keyof Operations;

/** Bounds a pool may set for its workers (`PoolOptions`); the defaults are limits.ts's. */
export interface EngineLimits {
  maxSchemaChain?: number;
  /** The WebAssembly heap's ceiling; read by the worker entry as libxml2 loads. */
  heapCeilingBytes?: number;
}

const limits: Required<Pick<EngineLimits, 'maxSchemaChain'>> = { maxSchemaChain: MAX_SCHEMA_CHAIN };

/** Called once by the worker entry, before the first call, with what the pool passed it. */
export function configureLimits(overrides: EngineLimits): void {
  if (overrides.maxSchemaChain !== undefined) limits.maxSchemaChain = overrides.maxSchemaChain;
}

/** This thread's parsed documents; only query, batch and inspect share a parse, so only they use it. */
const cache = new DocumentCache(MAX_CACHED_DOCUMENT_BYTES, LARGE_DOCUMENT_BYTES);

/**
 * Called before every parse, by every tool: a large document first frees the cached large trees,
 * so a worker holds one at a time (see LARGE_DOCUMENT_BYTES). A cache hit parses nothing.
 */
function makeRoomFor(...documents: Uint8Array[]): void {
  if (documents.some((document) => document.byteLength >= LARGE_DOCUMENT_BYTES)) cache.releaseLarge();
}

function withQueryDocument<T>(
  xml: Uint8Array,
  cacheAs: string | undefined,
  use: (doc: ReturnType<typeof parseDocument>) => T,
): T {
  if (cacheAs === undefined) {
    makeRoomFor(xml);
    return withDocument(xml, 'query', use);
  }
  // Room is made only on a miss: a hit on a large document must not free that very document.
  const parse = () => {
    makeRoomFor(xml);
    return parseDocument(xml, 'query');
  };
  return cache.use(cacheAs, 'query', xml, parse, use);
}

export const operations: { [K in OperationName]: (args: Operations[K]['args']) => Operations[K]['result'] } =
  {
    // The expression is guarded once, in queryDocument, after the parse: a refusal then costs a
    // parse the corrected call finds cached, and an unbound prefix can be answered with the
    // binding the document declares.
    query: ({ xml, xpath, namespaces, budget, output, cacheAs }) =>
      withQueryDocument(xml, cacheAs, (doc) =>
        withDefaultsNote(
          xml,
          doc,
          xpath,
          explainedQuery(doc, xpath, namespaces, () => queryDocument(doc, xpath, namespaces, budget, output)),
        ),
      ),
    batch: ({ xml, xpath, namespaces, budget, output, cacheAs }) =>
      withQueryDocument(xml, cacheAs, (doc) => ({
        results: queryBatch(doc, xpath, namespaces, budget, output).map((entry) =>
          'error' in entry ? entry : withDefaultsNote(xml, doc, entry.xpath, entry),
        ),
      })),
    inspect: ({ xml, maxChars, cacheAs }) =>
      withQueryDocument(xml, cacheAs, (doc) =>
        inspectDocument(doc, maxChars === undefined ? {} : { maxChars }),
      ),
    check: ({ xml }) => {
      makeRoomFor(xml);
      return check(xml);
    },
    validate: ({ xml, xsd, phase }) => {
      makeRoomFor(xml, xsd);
      return validate(xml, xsd, limits, phase === undefined ? {} : { phase });
    },
    format: ({ xml, indent, emptyElements }) => {
      makeRoomFor(xml);
      return { xml: formatToBytes(xml, { indent, emptyElements }) };
    },
  };

/** The answer with the note on attributes its DTD supplied, when the expression read any. */
function withDefaultsNote<T extends ExplainedResult>(
  xml: Uint8Array,
  doc: ReturnType<typeof parseDocument>,
  xpath: string,
  result: T,
): T {
  const defaults = dtdDefaultsNote(xml, doc, xpath);
  return defaults === undefined ? result : { ...result, defaults };
}

/** Frees every document kept for a client whose session ended. */
export function forgetClient(client: string): void {
  cache.forget(client);
}
