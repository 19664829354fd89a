import type { XmlDocument, XsdValidator } from 'libxml2-wasm';
import * as libxml2 from 'libxml2-wasm/lib/libxml2.mjs';
import {
  XmlErrorStruct,
  xmlGetNodePath,
  xmlSchemaFreeValidCtxt,
  xmlSchemaNewValidCtxt,
  xmlSchemaSetValidStructuredErrors,
  xmlSchemaValidateDoc,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { MAX_LISTED_VIOLATIONS, MAX_VIOLATION_TEXT_CHARS, VIOLATION_OUTPUT_CHARS } from './limits.js';
import { documentPointer } from './parse.js';

export interface Violation {
  message: string;
  /** Path to the element concerned, e.g. `/order/item[3]/price`. */
  path: string | null;
  line: number | null;
}

export type ValidationOutcome =
  | { kind: 'valid' }
  /** `total` counts every violation; `violations` are the first ones, within the output budget. */
  | { kind: 'invalid'; total: number; violations: Violation[]; truncated: boolean }
  /** libxml2 gave up before the end (it returned < 0); `reports` says why. */
  | { kind: 'failed'; reports: Violation[] };

interface Collection {
  total: number;
  listed: Violation[];
  chars: number;
  /** A message or path was cut to MAX_VIOLATION_TEXT_CHARS. */
  cut: boolean;
  /** The output budget is spent: later violations are only counted. */
  full: boolean;
}

/** The validation under way on this thread; libxml2 calls back synchronously, one at a time. */
let collecting: Collection | undefined;

/*
 * libxml2-wasm's `XsdValidator.validate` collects through its own callback, which asks libxml2
 * for every violation's element path; `xmlGetNodePath` scans all siblings of each ancestor to
 * number the step, so N bad values in one list cost N² steps (60,000 of them: 45 s, see
 * bench/validation-violations.ts). The wrapper has no option to skip it, so validation is driven
 * here through the same raw functions, with a callback that counts every violation and reads
 * message and path only for those the answer lists. `addFunction` is exported at run time but
 * missing from the package's type declarations.
 */
const { addFunction } = libxml2 as unknown as {
  addFunction(callback: (userData: number, error: number) => void, signature: 'vii'): number;
};

const onError = addFunction((_userData, error) => {
  const collection = collecting;
  if (collection === undefined) return;
  collection.total++;
  if (collection.full || collection.listed.length >= MAX_LISTED_VIOLATIONS) {
    collection.full = true;
    return;
  }
  const fullMessage = XmlErrorStruct.message(error).trim();
  const fullPath = xmlGetNodePath(XmlErrorStruct.node(error));
  const message = cut(fullMessage);
  const path = fullPath === null ? null : cut(fullPath);
  const chars = message.length + (path?.length ?? 0);
  if (collection.chars + chars > VIOLATION_OUTPUT_CHARS) {
    collection.full = true;
    return;
  }
  const line = XmlErrorStruct.line(error);
  collection.listed.push({ message, path, line: line > 0 ? line : null });
  collection.chars += chars;
  if (message !== fullMessage || path !== fullPath) collection.cut = true;
}, 'vii');

/** Validates a parsed document against a compiled schema; both stay the caller's. */
export function runSchema(validator: XsdValidator, doc: XmlDocument): ValidationOutcome {
  const context = xmlSchemaNewValidCtxt((validator as unknown as { _ptr: number })._ptr);
  if (context === 0) throw new Error('libxml2 could not allocate a schema validation context');
  const collection: Collection = { total: 0, listed: [], chars: 0, cut: false, full: false };
  collecting = collection;
  let status: number;
  try {
    xmlSchemaSetValidStructuredErrors(context, onError, 0);
    status = xmlSchemaValidateDoc(context, documentPointer(doc));
  } finally {
    collecting = undefined;
    xmlSchemaFreeValidCtxt(context);
  }
  if (status === 0) return { kind: 'valid' };
  if (status < 0) return { kind: 'failed', reports: collection.listed };
  const { total, listed, cut } = collection;
  return { kind: 'invalid', total, violations: listed, truncated: cut || total > listed.length };
}

/**
 * At most MAX_VIOLATION_TEXT_CHARS UTF-16 units, the last of them `…` when cut (never half a
 * surrogate pair), so a reader knows the quoted value goes on.
 */
function cut(text: string): string {
  if (text.length <= MAX_VIOLATION_TEXT_CHARS) return text;
  let end = MAX_VIOLATION_TEXT_CHARS - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
