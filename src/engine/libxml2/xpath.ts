import {
  XmlErrorStruct,
  XmlNodeSetStruct,
  XmlXPathObjectStruct,
  xmlGetLastError,
  xmlResetLastError,
  xmlXPathCompiledEval,
  xmlXPathCtxtCompile,
  xmlXPathFreeCompExpr,
  xmlXPathFreeContext,
  xmlXPathFreeObject,
  xmlXPathNewContext,
  xmlXPathRegisterNs,
  xmlXPathSetContextNode,
} from 'libxml2-wasm/lib/libxml2.mjs';
import { readI32, writeI32 } from './memory.js';
import type { DocumentRef, NodeRef } from './tree.js';

/**
 * An XPath result while libxml2 still holds it: read what is needed inside `read`, since the
 * object is freed as soon as it returns. Nodes are read one by one, so values past an output
 * budget are never copied out of the WebAssembly heap.
 */
export type XPathValue =
  | { type: 'node-set'; size: number; node(index: number): NodeRef }
  | { type: 'boolean'; value: boolean }
  | { type: 'number'; value: number }
  | { type: 'string'; value: string }
  | { type: 'other' };

/** `position`: libxml2's byte offset into the UTF-8 expression, when it gave one. */
export type XPathFailure = { failed: 'compile' | 'evaluate'; reason: string; position: number | undefined };

/** Filled in by an evaluation: the XPath steps it took (0 when the budget could not be set). */
export interface XPathCost {
  operations: number;
}

/**
 * Evaluates an XPath 1.0 expression with the document node (or `contextNode`) as context node. libxml2-wasm's own
 * `eval` starts from the root element (so `library/book` would miss), and frees namespace nodes
 * before they can be read, so the evaluation is driven through the raw API here. `opLimit`
 * bounds the XPath steps (libxml2 stops with "Operation limit exceeded"); `cost`, when given,
 * receives how many it took, so a batch can share one budget among its expressions.
 */
export function evaluateXPath<T>(
  doc: DocumentRef,
  expression: string,
  namespaces: Record<string, string>,
  opLimit: number,
  read: (value: XPathValue) => T,
  cost?: XPathCost,
  contextNode: NodeRef = doc,
): T | XPathFailure {
  return withCompiled<T | XPathFailure>(doc, expression, namespaces, contextNode, (context, compiled) => {
    const budgeted = applyOperationBudget(context, doc, opLimit);
    try {
      const object = xmlXPathCompiledEval(compiled, context);
      if (cost) cost.operations = budgeted ? (readI32(context + OP_COUNT_OFFSET) ?? 0) : 0;
      if (object === 0) return { failed: 'evaluate', ...lastError() };
      try {
        return read(readObject(object));
      } finally {
        xmlXPathFreeObject(object);
      }
    } finally {
      xmlXPathFreeCompExpr(compiled);
    }
  });
}

/**
 * Evaluates one XPath 1.0 expression with each of `contextNodes` as context node, compiled once:
 * what `read` makes of each value, in order, or the first failure. The nodes share one budget
 * of `opLimit` steps, as a batch does.
 */
export function evaluateXPathAtNodes<T>(
  doc: DocumentRef,
  expression: string,
  namespaces: Record<string, string>,
  opLimit: number,
  contextNodes: readonly NodeRef[],
  read: (value: XPathValue) => T,
): T[] | XPathFailure {
  return withCompiled<T[] | XPathFailure>(doc, expression, namespaces, doc, (context, compiled) => {
    try {
      applyOperationBudget(context, doc, opLimit);
      const values: T[] = [];
      for (const node of contextNodes) {
        xmlXPathSetContextNode(node, context);
        const object = xmlXPathCompiledEval(compiled, context);
        if (object === 0) return { failed: 'evaluate', ...lastError() };
        try {
          values.push(read(readObject(object)));
        } finally {
          xmlXPathFreeObject(object);
        }
      }
      return values;
    } finally {
      xmlXPathFreeCompExpr(compiled);
    }
  });
}

/** Why libxml2 cannot compile the expression as XPath 1.0, or null when it can (nothing is evaluated). */
export function compileFailure(
  doc: DocumentRef,
  expression: string,
  namespaces: Record<string, string>,
): XPathFailure | null {
  return withCompiled(doc, expression, namespaces, doc, (_, compiled) => {
    xmlXPathFreeCompExpr(compiled);
    return null;
  });
}

/**
 * Compiles the expression in a context of its own (`contextNode` as context node, the prefixes
 * bound), and runs `use` on it; `use` frees the compiled expression.
 */
function withCompiled<T>(
  doc: DocumentRef,
  expression: string,
  namespaces: Record<string, string>,
  contextNode: NodeRef,
  use: (context: number, compiled: number) => T,
): T | XPathFailure {
  const context = xmlXPathNewContext(doc);
  try {
    for (const [prefix, uri] of Object.entries(namespaces)) {
      if (prefix !== 'xml') xmlXPathRegisterNs(context, prefix, uri);
    }
    xmlXPathSetContextNode(contextNode, context);
    xmlResetLastError();
    const compiled = xmlXPathCtxtCompile(context, expression);
    if (compiled === 0) return { failed: 'compile', ...lastError() };
    return use(context, compiled);
  } finally {
    xmlXPathFreeContext(context);
  }
}

export function isXPathFailure(value: unknown): value is XPathFailure {
  return typeof value === 'object' && value !== null && 'failed' in value;
}

function readObject(object: number): XPathValue {
  switch (XmlXPathObjectStruct.type(object)) {
    case XmlXPathObjectStruct.Type.XPATH_NODESET: {
      const set = XmlXPathObjectStruct.nodesetval(object);
      const size = set === 0 ? 0 : XmlNodeSetStruct.nodeCount(set);
      const nodes = size === 0 ? [] : XmlNodeSetStruct.nodeTable(set, size);
      return { type: 'node-set', size, node: (index) => nodes[index] as NodeRef };
    }
    case XmlXPathObjectStruct.Type.XPATH_BOOLEAN:
      return { type: 'boolean', value: XmlXPathObjectStruct.boolval(object) !== 0 };
    case XmlXPathObjectStruct.Type.XPATH_NUMBER:
      return { type: 'number', value: XmlXPathObjectStruct.floatval(object) };
    case XmlXPathObjectStruct.Type.XPATH_STRING:
      return { type: 'string', value: XmlXPathObjectStruct.stringval(object) ?? '' };
    default:
      return { type: 'other' };
  }
}

/** Reads one 32-bit field of libxml2's xmlError, which the wrapper's accessors do not cover. */
function errorInt(error: number, offset: number): number {
  // XmlErrorStruct.level reads the i32 at error + 12; shifting the base reads any other field.
  return XmlErrorStruct.level(error + offset - 12);
}
const XML_ERROR_INT1_OFFSET = 36;

function lastError(): { reason: string; position: number | undefined } {
  const error = xmlGetLastError();
  if (error === 0) return { reason: 'syntax error', position: undefined };
  const reason = XmlErrorStruct.message(error).trim() || 'syntax error';
  return { reason, position: errorInt(error, XML_ERROR_INT1_OFFSET) };
}

/**
 * Offsets in libxml2 2.15's `xmlXPathContext` on wasm32 (libxml2-wasm 0.7.2): `doc` at 0,
 * `opLimit` at 204, `opCount` at 208. Each use first checks that `doc` reads back as the
 * document, so an upgrade that moves the struct disables the limit instead of writing astray.
 */
const DOC_OFFSET = 0;
const OP_LIMIT_OFFSET = 204;
const OP_COUNT_OFFSET = 208;

/**
 * Gives one XPath evaluation an operation budget, in milliseconds of work, where the worker
 * deadline would cost a worker restart. Returns false when the budget cannot be set.
 */
function applyOperationBudget(context: number, doc: DocumentRef, limit: number): boolean {
  if (readI32(context + DOC_OFFSET) !== doc) return false;
  return writeI32(context + OP_COUNT_OFFSET, 0) && writeI32(context + OP_LIMIT_OFFSET, limit);
}
